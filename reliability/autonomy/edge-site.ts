import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest } from '../../src/client/https-client.js';
import { runcStateRoot, siteNamespaceName } from '../../src/site-agent/runtimes/runc/index.js';
import { removeSiteNetwork, removeSitesCgroupParent } from '../../src/testing/runc-site-cleanup.js';
import { toolPath } from '../../src/testing/tools.js';
import { kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';
import { startServer, type ServerProcess } from '../../test/e2e/support/server-process.js';
import { AgentProcess } from './agent-process.js';
import { SiteLink } from './site-link.js';

const SITE = 'ce-autonomy';
const PODS = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/pods';

export interface EdgeSiteOptions {
  /** The server's `--node-monitor-grace-period` (undefined: its default, 40 s). */
  readonly graceSeconds?: number;
  readonly heartbeatSeconds: number;
}

export interface Pod {
  readonly metadata: { name: string; uid: string; labels?: Record<string, string>; deletionTimestamp?: string };
  readonly spec: { nodeName?: string };
  readonly status?: {
    readonly conditions?: ReadonlyArray<{ type: string; status: string }>;
    readonly containerStatuses?: ReadonlyArray<{ name: string; restartCount: number }>;
  };
}

export const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

async function freePortOn(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A real `edgeplane server` (SQLite, its own home, one address and port for its whole life)
 * and one runc customer edge whose agent is a process in the link's network namespace; a
 * virtual cluster `default/vk1` placed on it with a kubeconfig. Faults are SIGKILLs of the
 * processes it started, by pid, and cuts of the link. `close` removes everything it made
 * whatever state it is in: the link restored, the agent stopped with SIGTERM, what the site
 * leaves running for a next agent to adopt (containers and their conmon, HAProxy, dnsmasq)
 * ended by pid with its namespaces, runc state and cgroups (removeSiteNetwork), the server,
 * the link.
 */
export class EdgeSite {
  private server: ServerProcess | undefined;
  private readonly onExit = (): void => void this.server?.child.kill('SIGKILL');
  private agentProcess: AgentProcess | undefined;
  readonly site = SITE;

  private constructor(
    readonly dir: string,
    readonly link: SiteLink,
    private readonly port: number,
    private readonly options: EdgeSiteOptions,
  ) {}

  get agent(): AgentProcess {
    if (this.agentProcess === undefined) throw new Error('the site agent was never started');
    return this.agentProcess;
  }

  get serverHome(): string {
    return join(this.dir, 'server');
  }

  get agentHome(): string {
    return join(this.dir, 'agent');
  }

  get url(): string {
    return `https://${this.link.hostAddress}:${this.port}`;
  }

  get siteNetns(): string {
    return siteNamespaceName(this.agentHome, SITE);
  }

  get serverRunning(): boolean {
    return this.server !== undefined;
  }

  static async start(options: EdgeSiteOptions, progress: (line: string) => void): Promise<EdgeSite> {
    assert.equal(process.getuid?.(), 0, 'the autonomy area runs a runc site: it needs root');
    const dir = mkdtempSync(join(tmpdir(), 'edgeplane-autonomy-'));
    chmodSync(dir, 0o711);
    let link: SiteLink | undefined;
    let site: EdgeSite | undefined;
    try {
      link = SiteLink.create();
      const port = await freePortOn(link.hostAddress);
      site = new EdgeSite(dir, link, port, options);
      await site.startServer();
      progress(`server ${site.url} (SQLite); the site's agent in network namespace ${link.netns} (${link.siteAddress})`);
      const token = await site.prepare();
      site.agentProcess = new AgentProcess(
        { site: SITE, home: site.agentHome, siteNetns: site.siteNetns, netnsPath: link.netnsPath, heartbeatSeconds: options.heartbeatSeconds, logFile: join(dir, 'agent.log') },
        token,
      );
      await site.agentProcess.start(true);
      return site;
    } catch (error) {
      if (site !== undefined) await site.close();
      else {
        link?.remove();
        rmSync(dir, { recursive: true, force: true });
      }
      throw error;
    }
  }

  /** The virtual site, cluster and kubeconfig; a registration token for the site. */
  private async prepare(): Promise<string> {
    const post = async <T>(path: string, body: unknown): Promise<T> => {
      const answer = await this.call('POST', path, body);
      assert.equal(answer.status, 200, `POST ${path}: ${answer.body}`);
      return JSON.parse(answer.body) as T;
    };
    await post('/api/config/namespaces/default/virtual_sites', { metadata: { name: 'edge' }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } });
    await post('/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'edge' }] } });
    const credential = await post<{ data: string }>('/api/web/namespaces/system/api_credentials', {
      name: 'kube-vk1',
      expiration_days: 5,
      spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' },
    });
    writeFileSync(join(this.dir, 'kubeconfig'), Buffer.from(credential.data, 'base64'), { mode: 0o600 });
    return (await post<{ token: string }>('/api/sites/v1/tokens', { type: 'CUSTOMER_EDGE', ttl_seconds: 3600 })).token;
  }

  /** One request to the server with the tenant admin's API token (rejects when nothing answers within 5 s). */
  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> {
    const ca = readFileSync(join(this.serverHome, 'pki', 'ca.crt'), 'utf8');
    const token = readFileSync(join(this.serverHome, 'api-token'), 'utf8').trim();
    return httpsRequest(`${this.url}${path}`, ca, {
      method,
      headers: { authorization: `APIToken ${token}`, 'content-type': 'application/json' },
      timeoutMs: 5_000,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  /** `kubectl` with the cluster's kubeconfig; its stdout (throws on failure). */
  async kubectl(args: readonly string[], input?: string): Promise<string> {
    const run = await runKubectl(kubectlNewest(), args, { kubeconfig: join(this.dir, 'kubeconfig'), cacheDir: join(this.dir, 'kube-cache'), ...(input === undefined ? {} : { input }) });
    if (run.status !== 0) throw new Error(`kubectl ${args.join(' ')}: ${run.stderr}${run.stdout}`);
    return run.stdout;
  }

  /** The cluster's pods as the API has them (what `kubectl get pods` shows); undefined when the server does not answer. */
  async pods(): Promise<Pod[] | undefined> {
    if (this.server === undefined) return undefined;
    try {
      const answer = await this.call('GET', PODS);
      return answer.status === 200 ? (JSON.parse(answer.body) as { items: Pod[] }).items : undefined;
    } catch {
      return undefined;
    }
  }

  /** Pid of each runc container of the site (infra, sidecar and workload containers), by container id. */
  containerPids(): Map<string, number> {
    const out = execFileSync(toolPath('runc'), ['--root', runcStateRoot(this.siteNetns), 'list', '--format', 'json'], { encoding: 'utf8' });
    const list = (JSON.parse(out) as Array<{ id: string; pid: number; status: string }> | null) ?? [];
    return new Map(list.filter((c) => c.status === 'running').map((c) => [c.id, c.pid]));
  }

  /** A pod's folder on the site's disk. */
  podDir(uid: string): string {
    return join(this.agentHome, 'runc', SITE, 'pods', uid);
  }

  /** Starts the server on the same home, store, address and port; resolves once it serves. */
  async startServer(): Promise<void> {
    const grace = this.options.graceSeconds === undefined ? [] : ['--node-monitor-grace-period', `${this.options.graceSeconds}s`];
    const log = join(this.dir, 'server.log');
    appendFileSync(log, `--- server start at ${new Date().toISOString()}\n`);
    this.server = await startServer(this.serverHome, ['--listen', `${this.link.hostAddress}:${this.port}`, ...grace]);
    appendFileSync(log, this.server.logs.map((entry) => JSON.stringify(entry)).join('\n') + '\n');
    this.server.child.stdout?.on('data', (chunk: Buffer) => appendFileSync(log, chunk));
    process.off('exit', this.onExit).on('exit', this.onExit);
  }

  async killServer(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    await server?.stop('SIGKILL');
  }

  /** Ends the site's helper processes by pid (a machine's restart): what was ended, for the report. */
  killAgentHelpers(): string[] {
    const killed: string[] = [];
    for (const helper of this.agent.helperProcesses()) {
      try {
        process.kill(helper.pid, 'SIGKILL');
        killed.push(helper.command.split(' ')[0]?.split('/').pop() ?? 'process');
      } catch {
        // gone meanwhile
      }
    }
    return killed;
  }

  /**
   * Stops and removes everything; with `keepLogsIn`, the agent's and the server's logs (every
   * start) are copied into a new folder there first, whose path it returns.
   */
  async close(keepLogsIn?: string): Promise<string | undefined> {
    let kept: string | undefined;
    const steps: Array<() => Promise<void> | void> = [
      () => this.link.restore(),
      async () => {
        if (this.server === undefined) await this.startServer();
      },
      async () => await this.agentProcess?.stop('SIGTERM', 30_000),
      () => this.killNaming(this.dir),
      () => removeSiteNetwork(this.agentHome, SITE),
      () => removeSitesCgroupParent(),
      async () => {
        process.off('exit', this.onExit);
        const server = this.server;
        this.server = undefined;
        if (server !== undefined) {
          const timer = setTimeout(() => server.child.kill('SIGKILL'), 10_000);
          await server.stop('SIGTERM');
          clearTimeout(timer);
        }
      },
      () => this.link.remove(),
      () => {
        if (keepLogsIn === undefined) return;
        kept = mkdtempSync(join(keepLogsIn, 'edgeplane-autonomy-logs-'));
        for (const file of ['agent.log', 'server.log']) if (existsSync(join(this.dir, file))) copyFileSync(join(this.dir, file), join(kept, file));
      },
      () => rmSync(this.dir, { recursive: true, force: true }),
    ];
    for (const step of steps) {
      try {
        await step();
      } catch {
        // every later step still runs
      }
    }
    return kept;
  }

  /** What of the site and its link is still on the machine after `close` (for the clean-up check). */
  leftovers(): string[] {
    const left = this.link.leftovers();
    if (existsSync(`/run/netns/${this.siteNetns}`)) left.push(`the site's network namespace ${this.siteNetns}`);
    if (existsSync(runcStateRoot(this.siteNetns))) left.push(`runc state ${runcStateRoot(this.siteNetns)}`);
    if (existsSync(`/run/edgeplane-dns/${this.siteNetns}`)) left.push(`/run/edgeplane-dns/${this.siteNetns}`);
    if (existsSync(this.dir)) left.push(this.dir);
    const processes = this.processesNaming([this.dir, this.siteNetns]);
    if (processes.length > 0) left.push(`processes ${processes.join(', ')}`);
    return left;
  }

  /** The pids of processes (not this one) whose command line names one of `marks`. */
  private processesNaming(marks: readonly string[]): number[] {
    return readdirSync('/proc').filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid).map(Number).filter((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return marks.some((mark) => cmdline.includes(mark));
      } catch {
        return false;
      }
    });
  }

  /** Ends the processes whose command line names `dir` (what this site's agents left behind), by pid. */
  private killNaming(dir: string): void {
    for (const pid of this.processesNaming([dir]).filter((p) => p !== this.server?.child.pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}
