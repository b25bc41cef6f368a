import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { haproxyCommand, masterReloads, runtimeCommand } from './haproxy-cli.js';
import { renderHaproxyConfig, sourceFileContents, sourcesFile, type HaproxyConfigPaths } from './haproxy-config.js';
import { stopLeftover } from './leftover-process.js';
import { diffProxyPlans } from './proxy-diff.js';
import type { ProxyPlan } from './proxy-plan.js';
import type { Program } from '../host/index.js';

export interface HaproxyProcessOptions {
  readonly haproxy: Program;
  /** iproute2's ip, to run HAProxy in `netns`. */
  readonly ip: string;
  readonly netns: string;
  /** The proxy's own folder: configuration, cluster source lists, sockets. */
  readonly dir: string;
}

/** HAProxy refused a configuration or a command, or died: with its own words. */
export class HaproxyError extends Error {}

/** How a plan was applied. */
export interface ProxyApplyResult {
  readonly reloaded: boolean;
  readonly reasons: readonly string[];
  readonly commands: readonly string[];
}

const START_TIMEOUT_MS = 10_000;
const RELOAD_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One site's HAProxy (Debian's 2.6) in master-worker mode inside the site's network namespace:
 * `ip netns exec <ns> haproxy -W -f haproxy.cfg -S master.sock`. Each plan is written,
 * checked with `haproxy -c` and applied: by runtime API commands on the worker's stats socket
 * when only servers or cluster sources changed, else by a seamless reload through the master
 * CLI (the new worker takes the listening sockets over; old workers finish their connections,
 * up to `hard-stop-after`). A refused runtime command falls back to a reload. Stops only the
 * master it started, by pid.
 */
export class HaproxyProcess {
  readonly paths: HaproxyConfigPaths & { readonly config: string; readonly masterSocket: string; readonly pidFile: string };
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private output = '';
  private current: ProxyPlan | undefined;

  constructor(private readonly options: HaproxyProcessOptions) {
    const dir = options.dir;
    this.paths = { config: join(dir, 'haproxy.cfg'), statsSocket: join(dir, 'stats.sock'), masterSocket: join(dir, 'master.sock'), sourcesDir: join(dir, 'sources'), pidFile: join(dir, 'haproxy.pid') };
  }

  /** The master's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  /** Starts HAProxy on `plan`; resolves once its worker answers on the stats socket. */
  async start(plan: ProxyPlan): Promise<void> {
    if (this.child !== undefined) throw new HaproxyError('HAProxy is already started');
    await this.writeChecked(plan);
    const { haproxy, ip, netns } = this.options;
    // A master an earlier agent left (it was killed) still holds the addresses: it goes first.
    await stopLeftover(this.paths.pidFile, this.paths.config);
    rmSync(this.paths.masterSocket, { force: true });
    const child = spawn(ip, ['netns', 'exec', netns, haproxy.path, '-W', '-f', this.paths.config, '-S', `${this.paths.masterSocket},mode,600`, '-p', this.paths.pidFile], {
      env: { ...process.env, ...haproxy.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer): void => void (this.output = (this.output + chunk.toString()).slice(-8000));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => child.on('exit', () => resolve()));
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) throw new HaproxyError(`HAProxy exited at start: ${this.tail()}`);
      try {
        await haproxyCommand(this.paths.statsSocket, 'show info', 1000);
        await masterReloads(this.paths.masterSocket);
        break;
      } catch (error) {
        if (Date.now() > deadline) {
          await this.stop();
          throw new HaproxyError(`HAProxy did not answer within ${START_TIMEOUT_MS} ms (${(error as Error).message}): ${this.tail()}`);
        }
        await delay(50);
      }
    }
    this.current = plan;
  }

  /** Applies `plan`: runtime commands when they suffice, else a checked, seamless reload. */
  async apply(plan: ProxyPlan): Promise<ProxyApplyResult> {
    if (this.pid === undefined) throw new HaproxyError(`HAProxy is not running: ${this.tail()}`);
    const change = diffProxyPlans(this.current, plan, this.paths);
    await this.writeChecked(plan);
    if (change.reloadReasons.length === 0) {
      try {
        for (const command of change.commands) await runtimeCommand(this.paths.statsSocket, command);
        this.current = plan;
        return { reloaded: false, reasons: [], commands: change.commands };
      } catch (error) {
        await this.reload();
        this.current = plan;
        return { reloaded: true, reasons: [`runtime command refused: ${(error as Error).message}`], commands: change.commands };
      }
    }
    await this.reload();
    this.current = plan;
    return { reloaded: true, reasons: change.reloadReasons, commands: [] };
  }

  /** Stops HAProxy (SIGTERM to the master it started, SIGKILL after 5 s) and removes its sockets. */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await this.exited;
      clearTimeout(timer);
    }
    this.child = undefined;
    this.current = undefined;
    rmSync(this.paths.masterSocket, { force: true });
    rmSync(this.paths.statsSocket, { force: true });
    rmSync(this.paths.pidFile, { force: true });
  }

  /** Writes the cluster source lists and the configuration, refusing it (and keeping the running one) when `haproxy -c` does. */
  private async writeChecked(plan: ProxyPlan): Promise<void> {
    mkdirSync(this.paths.sourcesDir, { recursive: true, mode: 0o700 });
    for (const [cluster, content] of sourceFileContents(plan)) writeFileSync(sourcesFile(this.paths, cluster), content);
    const candidate = `${this.paths.config}.next`;
    writeFileSync(candidate, renderHaproxyConfig(plan, this.paths), { mode: 0o600 });
    const { haproxy } = this.options;
    await new Promise<void>((resolve, reject) => {
      execFile(haproxy.path, ['-c', '-f', candidate], { env: { ...process.env, ...haproxy.env }, timeout: 10_000 }, (error, stdout, stderr) => {
        if (error === null) resolve();
        else reject(new HaproxyError(`HAProxy refused the configuration: ${`${stdout}${stderr}`.trim() || error.message}`));
      });
    });
    renameSync(candidate, this.paths.config);
  }

  /** `reload` on the master CLI, then waits for the master to count it: a failed reload keeps the old worker and throws. */
  private async reload(): Promise<void> {
    const before = await masterReloads(this.paths.masterSocket);
    const mark = this.output.length;
    await haproxyCommand(this.paths.masterSocket, 'reload');
    const deadline = Date.now() + RELOAD_TIMEOUT_MS;
    for (;;) {
      const after = await masterReloads(this.paths.masterSocket).catch(() => undefined);
      if (after !== undefined && after.reloads > before.reloads) {
        if (after.failed > before.failed) throw new HaproxyError(`HAProxy's reload failed (the previous configuration still runs): ${this.output.slice(mark).trim() || this.tail()}`);
        // The master forks the new worker once it holds the listeners (taken over from the old worker).
        if (after.workers.some((pid) => !before.workers.includes(pid))) return;
      }
      if (Date.now() > deadline) throw new HaproxyError(`HAProxy did not finish a reload within ${RELOAD_TIMEOUT_MS} ms: ${this.tail()}`);
      await delay(25);
    }
  }

  private tail(): string {
    return this.output.trim().split('\n').slice(-8).join('\n') || '(no output)';
  }
}
