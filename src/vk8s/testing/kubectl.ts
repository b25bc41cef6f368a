import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const GCLOUD_BIN = '/usr/lib/google-cloud-sdk/bin';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** kubectl 1.20.2, from Debian's kubernetes-client unpacked into .tools/ by .ci/run (or EDGEPLANE_KUBECTL_1_20). */
export function kubectl120(): string {
  const path = process.env['EDGEPLANE_KUBECTL_1_20'] ?? `${REPO}.tools/kubernetes-client/usr/bin/kubectl`;
  if (executable(path)) return path;
  throw new Error(
    `kubectl 1.20 is not installed at ${path}: run .ci/run, or unpack Debian's "kubernetes-client" package there ` +
      '(mkdir -p .tools && cd .tools && apt-get download kubernetes-client && dpkg-deb -x kubernetes-client_*.deb kubernetes-client)',
  );
}

/** The newest kubectl on the machine: the highest kubectl.1.NN of google-cloud-cli, else kubectl on PATH. */
export function kubectlNewest(): string {
  let versions: string[] = [];
  try {
    versions = readdirSync(GCLOUD_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f));
  } catch {
    // no google-cloud-cli
  }
  const newest = versions.sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2])).pop();
  if (newest !== undefined && executable(`${GCLOUD_BIN}/${newest}`)) return `${GCLOUD_BIN}/${newest}`;
  const which = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim() !== '') return which.stdout.trim();
  throw new Error('no recent kubectl found: install google-cloud-cli\'s kubectl (kubectl.1.27 … 1.33) or put a kubectl ≥ 1.27 on PATH');
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
