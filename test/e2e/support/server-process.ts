import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `edgeplane` command as installed by `npm ci` (bin/edgeplane.js). */
export const EDGEPLANE_BIN = fileURLToPath(new URL('../../../../bin/edgeplane.js', import.meta.url));

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Parsed JSON log lines written so far. */
  readonly logs: Array<Record<string, unknown>>;
  /** What it wrote to stderr so far (messages for a person, e.g. the quick start's next steps). */
  stderr(): string;
  /** Sends the signal and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `edgeplane server` on a free port and waits for its "serving HTTPS" log line. */
export async function startServer(home: string, extraArgs: string[] = [], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [EDGEPLANE_BIN, 'server', '--home', home, '--listen', '127.0.0.1:0', ...extraArgs], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buffered = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // Not left running: the caller has no handle on it yet.
      child.kill('SIGKILL');
      reject(new Error(`server did not start within 30 s: ${stderr}`));
    }, 30_000);
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (entry['msg'] === 'serving HTTPS' && typeof entry['url'] === 'string') {
            clearTimeout(timer);
            resolve(entry['url']);
          }
        } catch {
          stderr += `unparsable log line: ${line}\n`;
        }
      }
    });
    void exited.then((code) => reject(new Error(`server exited with ${code} before serving: ${stderr}`)));
  });
  return {
    url,
    child,
    logs,
    stderr: () => stderr,
    stop: (signal = 'SIGINT') => {
      child.kill(signal);
      return exited;
    },
  };
}

export { httpsGet, httpsRequest } from '../../../src/client/https-client.js';
