import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { EDGEPLANE_BIN } from '../../test/e2e/support/server-process.js';
import { toolPath } from '../../src/testing/tools.js';

export interface AgentSpec {
  readonly site: string;
  readonly home: string;
  /** The site's network namespace the agent makes (its HAProxy, name servers and socket brokers run there). */
  readonly siteNetns: string;
  /** The network namespace the agent runs in (its link to the control plane). */
  readonly netnsPath: string;
  readonly heartbeatSeconds: number;
  /** Where every start's output is appended. */
  readonly logFile: string;
}

/**
 * The runc site agent (`edgeplane site --runtime runc --host-image`) as a process of its own,
 * inside the link's network namespace (busybox nsenter joins only the network namespace: the
 * agent shares this machine's mounts, so the network namespaces and pods it makes are the
 * machine's, as they would be on a real edge). Stops are by its pid.
 */
export class AgentProcess {
  private child: ChildProcess | undefined;
  private output = '';
  private token: string | undefined;
  private readonly onExit = (): void => void this.child?.kill('SIGKILL');

  constructor(
    private readonly spec: AgentSpec,
    registrationToken: string,
  ) {
    this.token = registrationToken;
  }

  get running(): boolean {
    const child = this.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.running ? this.child?.pid : undefined;
  }

  /** Starts it; with `waitRunning`, until it logs "site agent running" (it has reached the control plane). */
  async start(waitRunning: boolean): Promise<void> {
    const args = [
      'nsenter', `--net=${this.spec.netnsPath}`, process.execPath, EDGEPLANE_BIN, 'site',
      '--name', this.spec.site, '--type', 'CUSTOMER_EDGE', '--labels', 'edge=true',
      '--nodes', '1', '--cpu', '8', '--memory', '16Gi',
      '--runtime', 'runc', '--host-image',
      '--home', this.spec.home, '--heartbeat-seconds', String(this.spec.heartbeatSeconds),
      '--log-level', 'info', '--log-format', 'json',
    ];
    const env = { ...process.env, ...(this.token === undefined ? {} : { EDGEPLANE_REGISTRATION_TOKEN: this.token }) };
    const child = spawn(toolPath('busybox'), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.token = undefined;
    this.child = child;
    this.output = '';
    process.off('exit', this.onExit).on('exit', this.onExit);
    const keep = (chunk: Buffer): void => {
      this.output = (this.output + chunk.toString()).slice(-200_000);
      appendFileSync(this.spec.logFile, chunk);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    if (waitRunning) await this.untilRunning(90_000);
  }

  /** Waits for this start's "site agent running" line. */
  async untilRunning(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.output.includes('"msg":"site agent running"')) {
      if (!this.running) throw new Error(`the site agent exited (${this.child?.exitCode ?? this.child?.signalCode}):\n${this.output.slice(-3000)}`);
      if (Date.now() > deadline) throw new Error(`the site agent did not log "site agent running" within ${timeoutMs / 1000} s:\n${this.output.slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sends `signal`; resolves once it has exited (a SIGKILL after `killAfterMs`). */
  async stop(signal: NodeJS.Signals, killAfterMs = 20_000): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.kill(signal);
    await exited;
    clearTimeout(timer);
    process.off('exit', this.onExit);
  }

  /**
   * The processes the site's agents started that are neither pods nor their monitors: the
   * site's HAProxy, name servers and socket brokers (their command lines name the agent's
   * home or the site's network namespace, or they run in that namespace; conmon and whatever
   * runs in the sites' cgroups are left alone). A machine's restart
   * ends them; containers survive it here, as they do under conmon when only the agent's
   * service restarts.
   */
  helperProcesses(): Array<{ pid: number; command: string }> {
    const found: Array<{ pid: number; command: string }> = [];
    let siteNetns = -1;
    try {
      siteNetns = statSync(`/run/netns/${this.spec.siteNetns}`).ino;
    } catch {
      // no site network (yet)
    }
    for (const entry of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
      const pid = Number(entry);
      if (pid === this.pid || pid === process.pid) continue;
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const inSite = statSync(`/proc/${pid}/ns/net`).ino === siteNetns;
        if (!cmdline.includes(this.spec.home) && !cmdline.includes(this.spec.siteNetns) && !inSite) continue;
        const command = cmdline.split('\0').filter((a) => a !== '');
        if ((command[0] ?? '').endsWith('conmon')) continue;
        if (readFileSync(`/proc/${pid}/cgroup`, 'utf8').includes('/edgeplane/')) continue;
        found.push({ pid, command: command.slice(0, 3).join(' ') });
      } catch {
        // gone meanwhile
      }
    }
    return found;
  }
}
