import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { haproxyCommand, masterReloads, runtimeCommand } from './haproxy-cli.js';
import { renderHaproxyConfig, sourceFileContents, sourcesFile, type HaproxyConfigPaths } from './haproxy-config.js';
import { commandLine, identityOf, readJson, readPidFile, stillRuns, stopLeftover, stopProcess, writeJson, type ProcessIdentity } from './leftover-process.js';
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

/** What the agent keeps of its running master (`haproxy.json`): who it is and the plan it runs, so the next agent adopts it. */
interface SavedMaster extends ProcessIdentity {
  readonly plan: ProxyPlan;
}

/** The master: one this agent started (`child`), or one an earlier agent left and this one adopted. */
interface Master extends ProcessIdentity {
  readonly child?: ChildProcess;
  readonly exited?: Promise<void>;
}

/**
 * One site's HAProxy (Debian's 2.6) in master-worker mode inside the site's network namespace:
 * `ip netns exec <ns> haproxy -W -f haproxy.cfg -S master.sock`. Each plan is written,
 * checked with `haproxy -c` and applied: by runtime API commands on the worker's stats socket
 * when only servers or cluster sources changed, else by a seamless reload through the master
 * CLI (the new worker takes the listening sockets over; old workers finish their connections,
 * up to `hard-stop-after`). A refused runtime command falls back to a reload. Stops only the
 * master it started or adopted, by pid and start time.
 *
 * The master outlives the agent: its output goes to `haproxy.log`, and `haproxy.json` says who
 * it is (pid, start time) and the plan it runs. A starting agent adopts it ({@link adopt}) when
 * the pid file, its command line and start time say it is that master and it answers on its
 * stats and master sockets; the next plan is then applied in place (runtime commands, or a
 * seamless reload). One that does not answer is replaced.
 */
export class HaproxyProcess {
  readonly paths: HaproxyConfigPaths & {
    readonly config: string;
    readonly masterSocket: string;
    readonly pidFile: string;
    readonly state: string;
    readonly log: string;
  };
  private master: Master | undefined;
  private current: ProxyPlan | undefined;

  constructor(private readonly options: HaproxyProcessOptions) {
    const dir = options.dir;
    this.paths = {
      config: join(dir, 'haproxy.cfg'), statsSocket: join(dir, 'stats.sock'), masterSocket: join(dir, 'master.sock'), sourcesDir: join(dir, 'sources'), pidFile: join(dir, 'haproxy.pid'),
      state: join(dir, 'haproxy.json'), log: join(dir, 'haproxy.log'),
    };
  }

  /** The master's pid while it runs. */
  get pid(): number | undefined {
    const master = this.master;
    if (master === undefined) return undefined;
    if (master.child !== undefined) return master.child.exitCode === null && master.child.signalCode === null ? master.pid : undefined;
    return stillRuns(master) ? master.pid : undefined;
  }

  /**
   * Takes over the master an earlier agent left running, when its pid file, command line and
   * start time say it is the one `haproxy.json` names and it answers on both sockets: true. Else
   * stops what is left of it (by its pid file, if its command line names our configuration).
   */
  async adopt(): Promise<boolean> {
    if (this.master !== undefined) return this.pid !== undefined;
    const saved = readJson<SavedMaster>(this.paths.state);
    const named = (pid: number): boolean => readPidFile(this.paths.pidFile) === pid && (commandLine(pid) ?? []).includes(this.paths.config);
    if (saved !== undefined && stillRuns(saved) && named(saved.pid)) {
      try {
        await haproxyCommand(this.paths.statsSocket, 'show info', 1000);
        await masterReloads(this.paths.masterSocket);
        this.master = { pid: saved.pid, startTime: saved.startTime };
        this.current = this.runs(saved.plan) ? saved.plan : undefined;
        return true;
      } catch {
        // It does not answer: replaced below.
      }
    }
    await stopLeftover(this.paths.pidFile, this.paths.config);
    rmSync(this.paths.state, { force: true });
    return false;
  }

  /** Starts HAProxy on `plan`; resolves once its worker answers on the stats socket. */
  async start(plan: ProxyPlan): Promise<void> {
    if (this.pid !== undefined) throw new HaproxyError('HAProxy is already started');
    this.master = undefined;
    await this.writeChecked(plan);
    const { haproxy, ip, netns } = this.options;
    // A master an earlier agent left that was not adopted still holds the addresses: it goes first.
    await stopLeftover(this.paths.pidFile, this.paths.config);
    rmSync(this.paths.masterSocket, { force: true });
    // Its output goes to a file, not to the agent: it outlives the agent.
    const log = openSync(this.paths.log, 'w', 0o600);
    const child = spawn(ip, ['netns', 'exec', netns, haproxy.path, '-W', '-f', this.paths.config, '-S', `${this.paths.masterSocket},mode,600`, '-p', this.paths.pidFile], {
      env: { ...process.env, ...haproxy.env },
      stdio: ['ignore', log, log],
    });
    closeSync(log);
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    this.master = { pid: child.pid ?? 0, startTime: identityOf(child.pid)?.startTime ?? '', child, exited };
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
    this.save();
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
        this.save();
        return { reloaded: false, reasons: [], commands: change.commands };
      } catch (error) {
        await this.reload();
        this.current = plan;
        this.save();
        return { reloaded: true, reasons: [`runtime command refused: ${(error as Error).message}`], commands: change.commands };
      }
    }
    await this.reload();
    this.current = plan;
    this.save();
    return { reloaded: true, reasons: change.reloadReasons, commands: [] };
  }

  /** Stops HAProxy (SIGTERM to the master it started or adopted, SIGKILL after 5 s) and removes its sockets. */
  async stop(): Promise<void> {
    const master = this.master;
    if (master === undefined) return;
    const { child } = master;
    if (child === undefined) await stopProcess(master, STOP_TIMEOUT_MS);
    else if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await master.exited;
      clearTimeout(timer);
    }
    this.master = undefined;
    this.current = undefined;
    for (const path of [this.paths.masterSocket, this.paths.statsSocket, this.paths.pidFile, this.paths.state]) rmSync(path, { force: true });
  }

  /**
   * Whether the configuration on disk is `plan`'s (else the saved plan is from another version,
   * or an agent died between writing a configuration and applying it: the next plan reloads).
   */
  private runs(plan: ProxyPlan): boolean {
    try {
      return readFileSync(this.paths.config, 'utf8') === renderHaproxyConfig(plan, this.paths);
    } catch {
      return false;
    }
  }

  /** Leaves the master running for the next agent to adopt (the agent stops; its files stay). */
  detach(): void {
    this.master?.child?.unref();
    this.master = undefined;
    this.current = undefined;
  }

  /** Says who the master is and what it runs, for the next agent. */
  private save(): void {
    const master = this.master;
    if (master === undefined || this.current === undefined) return;
    writeJson(this.paths.state, { pid: master.pid, startTime: master.startTime, plan: this.current } satisfies SavedMaster);
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
    const mark = this.logSize();
    await haproxyCommand(this.paths.masterSocket, 'reload');
    const deadline = Date.now() + RELOAD_TIMEOUT_MS;
    for (;;) {
      const after = await masterReloads(this.paths.masterSocket).catch(() => undefined);
      if (after !== undefined && after.reloads > before.reloads) {
        if (after.failed > before.failed) throw new HaproxyError(`HAProxy's reload failed (the previous configuration still runs): ${this.output(mark).trim() || this.tail()}`);
        // The master forks the new worker once it holds the listeners (taken over from the old worker).
        if (after.workers.some((pid) => !before.workers.includes(pid))) return;
      }
      if (Date.now() > deadline) throw new HaproxyError(`HAProxy did not finish a reload within ${RELOAD_TIMEOUT_MS} ms: ${this.tail()}`);
      await delay(25);
    }
  }

  private logSize(): number {
    try {
      return statSync(this.paths.log).size;
    } catch {
      return 0;
    }
  }

  /** What HAProxy wrote to its log after byte `from` (the last 8000 bytes at most). */
  private output(from = 0): string {
    try {
      const text = readFileSync(this.paths.log);
      return text.subarray(Math.max(from, text.length - 8000)).toString();
    } catch {
      return '';
    }
  }

  private tail(): string {
    return this.output().trim().split('\n').slice(-8).join('\n') || '(no output)';
  }
}
