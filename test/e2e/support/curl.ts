import { execFile } from 'node:child_process';
import { toolPath } from '../../../src/testing/tools.js';

/** What one run of the `curl` command did. */
export interface CurlResult {
  /** curl's exit code: 0, or e.g. 7 (could not connect), 35/56 (TLS handshake or read failed), 60 (peer certificate not verified). */
  readonly exit: number;
  /** The HTTP status, 0 when no response was read. */
  readonly status: number;
  /** Response headers, names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly stderr: string;
}

/**
 * Runs the real `curl` binary (`-sS --include --max-time 15` and `args`, the URL last) and
 * parses the response. Never throws for curl's own failures: they are in `exit` and `stderr`.
 */
export function curl(args: readonly string[]): Promise<CurlResult> {
  const binary = toolPath('curl');
  return new Promise((resolve, reject) => {
    execFile(binary, ['-sS', '--include', '--max-time', '15', ...args], { encoding: 'utf8', maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error !== null && typeof error.code !== 'number') return reject(new Error(error.message));
      const exit = error === null ? 0 : Number(error.code);
      const split = stdout.indexOf('\r\n\r\n');
      const head = split < 0 ? '' : stdout.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ exit, status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(statusLine)?.[1] ?? 0), headers, body: split < 0 ? '' : stdout.slice(split + 4), stderr });
    });
  });
}
