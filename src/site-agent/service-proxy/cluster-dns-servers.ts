import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../../observability/logger.js';
import type { Program } from '../host/index.js';
import { DNS_GROUP, dnsmasqArguments } from './cluster-dns.js';
import { dnsAnswers } from './dns-health.js';
import { commandLine, identityOf, readJson, readPidFile, stillRuns, stopLeftover, stopProcess, writeJson, type ProcessIdentity } from './leftover-process.js';
import type { ClusterId } from './proxy-model.js';

/** The link-local block the clusters' DNS listeners take addresses from (NodeLocal DNSCache's 169.254.20.10 lives there). */
const DNS_BLOCK = '169.254.20.';
const FIRST_HOST = 10;
const LAST_HOST = 254;
const START_TIMEOUT_MS = 10_000;
const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A server this agent started (`child`), or one an earlier agent left and this one adopted. */
interface Server extends ProcessIdentity {
  readonly child?: ChildProcess;
  readonly exited?: Promise<void>;
}

/** What the agent keeps of a running server (`<dir>/<cluster>.json`), for the next agent to adopt it. */
interface SavedServer extends ProcessIdentity {
  readonly args: readonly string[];
}

const safeName = (cluster: ClusterId): string => cluster.replace(/[^A-Za-z0-9.-]/g, '_');

/** The gid of {@link DNS_GROUP} (65534 on Debian when /etc/group does not say). */
function dnsGroupId(): number {
  try {
    const line = readFileSync('/etc/group', 'utf8').split('\n').find((l) => l.startsWith(`${DNS_GROUP}:`));
    const gid = Number(line?.split(':')[2]);
    return Number.isInteger(gid) ? gid : 65534;
  } catch {
    return 65534;
  }
}

/** A folder readable by root and the DNS group only. */
function groupFolder(path: string, gid: number): void {
  mkdirSync(path, { recursive: true, mode: 0o750 });
  chownSync(path, 0, gid);
}

/**
 * One dnsmasq per virtual cluster with pods or Services on the site (see cluster-dns.ts for
 * why one per cluster), each in the site's network namespace on its own link-local address.
 * Addresses are kept in `<dir>/addresses.json` so they survive an agent restart: running
 * pods' resolv.conf name them. dnsmasq drops to nobody/nogroup once bound, so the hosts files
 * live in `runDir` (on tmpfs, outside the agent's private home), readable by that group only;
 * a change is a rename into a server's hosts folder, which dnsmasq re-reads by itself. Stops
 * only the servers it started or adopted, by pid and start time.
 *
 * Servers outlive the agent (their output goes to `<dir>/<cluster>.log`): a starting agent
 * adopts a cluster's running server when its pid file, command line (the same arguments: its
 * configuration did not change) and start time say it is the one `<dir>/<cluster>.json` names,
 * and it answers a query; else it is replaced. Its names need no restart: they are files it
 * re-reads.
 */
export class ClusterDnsServers {
  private readonly servers = new Map<ClusterId, Server>();
  private readonly addresses: Map<ClusterId, string>;
  private readonly file: string;

  private readonly gid = dnsGroupId();

  constructor(private readonly options: { readonly dnsmasq: Program; readonly ip: string; readonly netns: string; readonly dir: string; readonly runDir: string; readonly logger: Logger }) {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    this.file = join(options.dir, 'addresses.json');
    this.addresses = new Map(Object.entries(this.readAddresses()));
  }

  /** The listener address of `cluster`'s server, allocated (and saved) on first use. */
  addressOf(cluster: ClusterId): string {
    const known = this.addresses.get(cluster);
    if (known !== undefined) return known;
    const taken = new Set(this.addresses.values());
    for (let host = FIRST_HOST; host <= LAST_HOST; host++) {
      const address = `${DNS_BLOCK}${host}`;
      if (taken.has(address)) continue;
      this.addresses.set(cluster, address);
      this.save();
      return address;
    }
    throw new Error(`no DNS listener address is free on this site: ${LAST_HOST - FIRST_HOST + 1} virtual clusters already have one`);
  }

  /** Every allocated listener address (the site keeps them on its Service interface). */
  allocated(): Set<string> {
    return new Set(this.addresses.values());
  }

  /**
   * Writes `cluster`'s names (undefined: keeps those it has, as long as the Services are not
   * listed yet) and starts its server if it is not running or adopted (its address must be on
   * the site by now).
   */
  async ensure(cluster: ClusterId, hosts: string | undefined): Promise<void> {
    const dir = this.clusterDir(cluster);
    // Its parent is traversable (it lists only site namespace names); the rest is the group's.
    mkdirSync(dirname(this.options.runDir), { recursive: true, mode: 0o755 });
    groupFolder(this.options.runDir, this.gid);
    groupFolder(dir, this.gid);
    groupFolder(join(dir, 'hosts'), this.gid);
    const target = join(dir, 'hosts', 'services');
    let current: string | undefined;
    try {
      current = readFileSync(target, 'utf8');
    } catch {
      current = undefined;
    }
    if (current !== hosts && (hosts !== undefined || current === undefined)) {
      writeFileSync(join(dir, 'services.next'), hosts ?? '', { mode: 0o640 });
      chownSync(join(dir, 'services.next'), 0, this.gid);
      renameSync(join(dir, 'services.next'), target);
    }
    const running = this.servers.get(cluster);
    if (running !== undefined && stillRuns(running)) return;
    if (running === undefined && (await this.adopt(cluster, dir))) return;
    await this.start(cluster, dir);
  }

  /** Stops the servers of clusters not in `keep` and frees their addresses. */
  async retain(keep: ReadonlySet<ClusterId>): Promise<void> {
    const gone = [...this.addresses.keys()].filter((cluster) => !keep.has(cluster));
    for (const cluster of gone) {
      await this.stopServer(cluster);
      // One an earlier agent left, never adopted (its cluster is gone).
      await stopLeftover(join(this.clusterDir(cluster), 'dnsmasq.pid'), join(this.clusterDir(cluster), 'hosts'));
      rmSync(this.stateFile(cluster), { force: true });
      this.addresses.delete(cluster);
      rmSync(this.clusterDir(cluster), { recursive: true, force: true });
    }
    if (gone.length > 0) this.save();
  }

  /** Leaves every server running for the next agent to adopt (the agent stops; the hosts files stay). */
  detach(): void {
    for (const server of this.servers.values()) server.child?.unref();
    this.servers.clear();
  }

  /** Stops every server and removes the hosts files (the next agent writes them again). */
  async close(): Promise<void> {
    for (const cluster of [...this.servers.keys()]) await this.stopServer(cluster);
    rmSync(this.options.runDir, { recursive: true, force: true });
  }

  private save(): void {
    writeFileSync(`${this.file}.next`, JSON.stringify(Object.fromEntries(this.addresses)), { mode: 0o600 });
    renameSync(`${this.file}.next`, this.file);
  }

  /** The server an earlier agent left for `cluster`, when it is that server, runs our arguments and answers: adopted. */
  private async adopt(cluster: ClusterId, dir: string): Promise<boolean> {
    const saved = readJson<SavedServer>(this.stateFile(cluster));
    const args = this.argumentsOf(cluster, dir);
    if (saved === undefined || readPidFile(join(dir, 'dnsmasq.pid')) !== saved.pid || !stillRuns(saved)) return false;
    if (JSON.stringify((commandLine(saved.pid) ?? []).slice(1)) !== JSON.stringify(args)) return false;
    if (!(await dnsAnswers(this.options.ip, this.options.netns, this.addressOf(cluster)))) return false;
    this.servers.set(cluster, { pid: saved.pid, startTime: saved.startTime });
    this.options.logger.info({ cluster, address: this.addressOf(cluster), pid: saved.pid }, 'cluster DNS server adopted');
    return true;
  }

  private argumentsOf(cluster: ClusterId, dir: string): string[] {
    return dnsmasqArguments({ listenAddress: this.addressOf(cluster), hostsDir: join(dir, 'hosts'), pidFile: join(dir, 'dnsmasq.pid') });
  }

  private stateFile(cluster: ClusterId): string {
    return join(this.options.dir, `${safeName(cluster)}.json`);
  }

  private clusterDir(cluster: ClusterId): string {
    return join(this.options.runDir, safeName(cluster));
  }

  private readAddresses(): Record<string, string> {
    try {
      const parsed = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  private async start(cluster: ClusterId, dir: string): Promise<void> {
    // A server an earlier agent left that was not adopted (changed, not answering) goes first.
    await stopLeftover(join(dir, 'dnsmasq.pid'), join(dir, 'hosts'));
    rmSync(this.stateFile(cluster), { force: true });
    const { dnsmasq, ip, netns } = this.options;
    const args = this.argumentsOf(cluster, dir);
    // Its output goes to a file, not to the agent: it outlives the agent.
    const logFile = join(this.options.dir, `${safeName(cluster)}.log`);
    const log = openSync(logFile, 'w', 0o600);
    const child = spawn(ip, ['netns', 'exec', netns, dnsmasq.path, ...args], { env: { ...process.env, ...dnsmasq.env }, stdio: ['ignore', log, log] });
    closeSync(log);
    const server: Server = { pid: child.pid ?? 0, startTime: identityOf(child.pid)?.startTime ?? '', child, exited: new Promise((resolve) => child.on('exit', () => resolve())) };
    this.servers.set(cluster, server);
    const output = (): string => {
      try {
        return readFileSync(logFile, 'utf8').slice(-4000);
      } catch {
        return '';
      }
    };
    const deadline = Date.now() + START_TIMEOUT_MS;
    // dnsmasq says "started" once its sockets are bound.
    while (!/\bstarted, version\b/.test(output())) {
      const failure = child.exitCode !== null || child.signalCode !== null ? `dnsmasq exited (${child.signalCode ?? child.exitCode ?? ''})` : Date.now() > deadline ? `dnsmasq did not start within ${START_TIMEOUT_MS} ms` : undefined;
      if (failure !== undefined) {
        await this.stopServer(cluster);
        throw new Error(`${failure}: ${output().trim().split('\n').slice(-4).join(' ')}`);
      }
      await delay(20);
    }
    writeJson(this.stateFile(cluster), { pid: server.pid, startTime: server.startTime, args } satisfies SavedServer);
    this.options.logger.info({ cluster, address: this.addressOf(cluster), pid: child.pid }, 'cluster DNS server started');
  }

  private async stopServer(cluster: ClusterId): Promise<void> {
    const server = this.servers.get(cluster);
    if (server === undefined) return;
    this.servers.delete(cluster);
    rmSync(this.stateFile(cluster), { force: true });
    const { child } = server;
    if (child === undefined) await stopProcess(server, 3000);
    else if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await server.exited;
      clearTimeout(timer);
    }
  }
}
