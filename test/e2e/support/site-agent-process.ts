import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { EDGEPLANE_BIN } from './server-process.js';
import { waitFor } from './wait-for.js';

export interface SiteAgentProcess {
  readonly child: ChildProcess;
  /** Everything it wrote (JSON log lines), all its output together. */
  log(): string;
  /** Whether it is still running (not crashed). */
  running(): boolean;
  /** Sends SIGTERM (SIGKILL after 15 s) and waits for the exit. */
  stop(): Promise<void>;
}

export interface SiteAgentProcessOptions {
  readonly home: string;
  readonly site: string;
  /** `--labels`, e.g. `edge=true`. */
  readonly labels: string;
  /** The registration token (the first start only). */
  readonly token?: string;
}

/** A registration token for a customer edge of the tenant whose admin token is in `home` (`edgeplane site token`). */
export function siteToken(home: string): string {
  const args = [EDGEPLANE_BIN, 'site', 'token', '--type', 'CUSTOMER_EDGE'];
  const result = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, EDGEPLANE_HOME: home } });
  if (result.status !== 0) throw new Error(`edgeplane site token failed: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * An external `edgeplane site` process with the simulated runtime (one node, heartbeats every
 * second, pods Running and Ready within 100 ms), registered with `token` the first time.
 * Resolves once it logged "site agent running".
 */
export async function startSiteAgentProcess(options: SiteAgentProcessOptions): Promise<SiteAgentProcess> {
  const args = [
    EDGEPLANE_BIN, 'site',
    '--name', options.site, '--type', 'CUSTOMER_EDGE', '--labels', options.labels,
    '--nodes', '1', '--home', options.home, '--heartbeat-seconds', '1', '--sim-start-ms', '100',
    '--log-level', 'info', '--log-format', 'json',
  ];
  const env = { ...process.env, ...(options.token === undefined ? {} : { EDGEPLANE_REGISTRATION_TOKEN: options.token }) };
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer): void => void (log = (log + chunk.toString()).slice(-400_000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const running = (): boolean => child.exitCode === null && child.signalCode === null;
  const stop = async (): Promise<void> => {
    if (!running()) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor('the site agent running', () => {
      if (!running()) throw new Error(`the site agent exited (${child.exitCode ?? child.signalCode}):\n${log.slice(-4000)}`);
      return Promise.resolve(log.includes('"msg":"site agent running"') ? true : undefined);
    }, { timeoutMs: 60_000, intervalMs: 100 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, log: () => log, running, stop };
}
