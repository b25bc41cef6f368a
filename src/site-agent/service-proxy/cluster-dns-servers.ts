import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Logger } from '../../observability/logger.js';
import type { Program } from '../host/index.js';
import { DNS_GROUP, dnsmasqArguments } from './cluster-dns.js';
import { stopLeftover } from './leftover-process.js';
import type { ClusterId } from './proxy-model.js';

/** The link-local block the clusters' DNS listeners take addresses from (NodeLocal DNSCache's 169.254.20.10 lives there). */
const DNS_BLOCK = '169.254.20.';
const FIRST_HOST = 10;
const LAST_HOST = 254;
const START_TIMEOUT_MS = 10_000;

interface Server {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  output: string;
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
 * only the servers it started, by pid.
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

  /** Writes `cluster`'s names and starts its server if it is not running (its address must be on the site by now). */
  async ensure(cluster: ClusterId, hosts: string): Promise<void> {
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
    if (current !== hosts) {
      writeFileSync(join(dir, 'services.next'), hosts, { mode: 0o640 });
      chownSync(join(dir, 'services.next'), 0, this.gid);
      renameSync(join(dir, 'services.next'), target);
    }
    const running = this.servers.get(cluster);
    if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null) return;
    await this.start(cluster, dir);
  }

  /** Stops the servers of clusters not in `keep` and frees their addresses. */
  async retain(keep: ReadonlySet<ClusterId>): Promise<void> {
    const gone = [...this.addresses.keys()].filter((cluster) => !keep.has(cluster));
    for (const cluster of gone) {
      await this.stopServer(cluster);
      this.addresses.delete(cluster);
      rmSync(this.clusterDir(cluster), { recursive: true, force: true });
    }
    if (gone.length > 0) this.save();
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
    const pidFile = join(dir, 'dnsmasq.pid');
    const hostsDir = join(dir, 'hosts');
    await stopLeftover(pidFile, hostsDir);
    const { dnsmasq, ip, netns } = this.options;
    const args = dnsmasqArguments({ listenAddress: this.addressOf(cluster), hostsDir, pidFile });
    const child = spawn(ip, ['netns', 'exec', netns, dnsmasq.path, ...args], { env: { ...process.env, ...dnsmasq.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const server: Server = { child, exited: new Promise((resolve) => child.on('exit', () => resolve())), output: '' };
    this.servers.set(cluster, server);
    const started = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`dnsmasq did not start within ${START_TIMEOUT_MS} ms: ${server.output.trim()}`)), START_TIMEOUT_MS);
      const keep = (chunk: Buffer): void => {
        server.output = (server.output + chunk.toString()).slice(-4000);
        // dnsmasq says "started" once its sockets are bound.
        if (/\bstarted, version\b/.test(server.output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`dnsmasq exited (${signal ?? code ?? ''}): ${server.output.trim().split('\n').slice(-4).join(' ')}`));
      });
    });
    try {
      await started;
    } catch (error) {
      await this.stopServer(cluster);
      throw error;
    }
    this.options.logger.info({ cluster, address: this.addressOf(cluster), pid: child.pid }, 'cluster DNS server started');
  }

  private async stopServer(cluster: ClusterId): Promise<void> {
    const server = this.servers.get(cluster);
    if (server === undefined) return;
    this.servers.delete(cluster);
    if (server.child.exitCode === null && server.child.signalCode === null) {
      server.child.kill('SIGTERM');
      const timer = setTimeout(() => server.child.kill('SIGKILL'), 3000);
      await server.exited;
      clearTimeout(timer);
    }
  }
}
