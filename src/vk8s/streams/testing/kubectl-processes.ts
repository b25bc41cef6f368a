import { spawn } from 'node:child_process';
import type { KubectlRun } from '../../testing/kubectl.js';

interface KubectlEnv {
  readonly kubeconfig: string;
  readonly cacheDir: string;
}

/** Starts kubectl with its own kubeconfig and cache; the caller owns the process. */
export function spawnKubectl(binary: string, args: readonly string[], env: KubectlEnv): ReturnType<typeof spawn> {
  return spawn(binary, [`--kubeconfig=${env.kubeconfig}`, `--cache-dir=${env.cacheDir}`, ...args], {
    env: { ...process.env, HOME: env.cacheDir, KUBECONFIG: env.kubeconfig },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Runs kubectl with `input` on its stdin (then EOF); asynchronous, killed after 60 s. Output as bytes too. */
export function runKubectlWithInput(binary: string, args: readonly string[], input: Buffer | string, env: KubectlEnv): Promise<KubectlRun & { readonly output: Buffer }> {
  return new Promise((resolve) => {
    const child = spawnKubectl(binary, args, env);
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      const output = Buffer.concat(out);
      resolve({ status, stdout: output.toString(), stderr, output });
    });
  });
}

export interface KubectlPortForward {
  /** The local port kubectl listens on. */
  readonly port: number;
  /** Everything kubectl wrote so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `kubectl [flags] port-forward <pod> :<remote>` and waits for its `Forwarding from 127.0.0.1:<port>` line. */
export function startKubectlPortForward(binary: string, pod: string, remotePort: number, env: KubectlEnv, flags: readonly string[] = []): Promise<KubectlPortForward> {
  return new Promise((resolve, reject) => {
    const child = spawnKubectl(binary, [...flags, 'port-forward', pod, `:${remotePort}`], env);
    child.stdin?.end();
    let text = '';
    const exited = new Promise<void>((done) => child.once('close', () => done()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kubectl port-forward did not start: ${text}`));
    }, 30_000);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString();
      const match = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(text);
      if (match === null) return;
      clearTimeout(timer);
      resolve({
        port: Number(match[1]),
        output: () => text,
        async stop() {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('close', (status) => {
      clearTimeout(timer);
      reject(new Error(`kubectl port-forward exited with ${status}: ${text}`));
    });
  });
}
