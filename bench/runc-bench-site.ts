import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpsResponse } from '../src/client/https-client.js';
import { startConfigHarness, type ConfigHarness } from '../src/server/testing/config-harness.js';
import { removeCgroup } from '../src/site-agent/host/index.js';
import { runcStateRoot, siteCgroupParent, siteNamespaceName } from '../src/site-agent/runtimes/runc/index.js';
import { removeSiteNetwork, removeSitesCgroupParent } from '../src/testing/runc-site-cleanup.js';
import type { Target } from './watch-protocol.js';

const EDGEPLANE_BIN = fileURLToPath(new URL('../../bin/edgeplane.js', import.meta.url));
/** The virtual cluster's API under the control plane. */
const VK8S = '/api/vk8s/namespaces/default/bench';
const DEPLOYMENTS = `${VK8S}/apis/apps/v1/namespaces/default/deployments`;
const CPUACCT = '/sys/fs/cgroup/cpuacct';

/** The shape of the site the agent registers (`edgeplane site` flags). */
export interface BenchSiteShape {
  readonly nodes: number;
  /** Each node's capacity. */
  readonly cpu: string;
  readonly memory: string;
}

/** What a bench Deployment's container runs, and the CPU it requests (its cgroup's cpu.shares follow it). */
interface BenchWorkload {
  readonly command: readonly string[];
  readonly cpu: string;
  /** The container's readinessProbe, as in a pod spec. */
  readonly readinessProbe?: unknown;
  /**
   * The container's CPU and memory limits. Without them the platform gives it the workload
   * flavor's (tiny: 100m CPU, a CFS quota of 10 ms per 100 ms, and 100Mi).
   */
  readonly limits?: { readonly cpu: string; readonly memory: string };
}

const IDLE: BenchWorkload = { command: ['sleep', '3600'], cpu: '1m' };

export interface BenchPod {
  readonly name: string;
  readonly uid: string;
  /** status.podIP, once the agent reported it. */
  readonly ip?: string;
  /** The Ready condition is True. */
  readonly ready: boolean;
}

export interface RuncBenchSite {
  readonly site: string;
  /** The agent process's pid (`edgeplane site`). */
  readonly agentPid: number;
  /**
   * The cgroup (v1 cpuacct) the agent was started in, with everything it starts outside its
   * pods' containers: conmon, runc, ip, its socket brokers. Undefined without a cpuacct hierarchy.
   */
  readonly agentCgroup?: string;
  /** The site's network namespace, also the name of its cgroup folder under /edgeplane. */
  readonly netns: string;
  /** The agent's home (`--home`): its sites' pod folders and container logs are under it. */
  readonly home: string;
  /** A kubeconfig of the virtual cluster (the tenant's `KUBE_CONFIG` API credential), for kubectl and client-node. */
  readonly kubeconfig: string;
  /** A watch of the virtual cluster's pods. */
  readonly podWatch: Target;
  /** A request to the virtual cluster's API (`path` below it, e.g. `/api/v1/namespaces/default/services`); throws on a status outside 2xx. */
  vk8s(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<HttpsResponse>;
  /** A watch of `path` below the virtual cluster's API (with `?watch=true`), for {@link openWatchConnection}. */
  vk8sWatch(path: string): Target;
  /**
   * A Deployment `name` of `replicas` pods, label `app: name`, each with one container `c` on
   * the host image running `sleep 3600` with small requests (1m CPU: the least cpu.shares), or
   * the given workload.
   */
  createDeployment(name: string, replicas: number, workload?: BenchWorkload): Promise<void>;
  /** The pods labelled `app: name`, as the virtual cluster shows them now. */
  pods(app: string): Promise<BenchPod[]>;
  scaleDeployment(name: string, replicas: number): Promise<void>;
  /** Deletes it; the garbage collector deletes its pods (kubectl's background propagation). */
  deleteDeployment(name: string): Promise<void>;
  /** Stops the agent (SIGTERM, as a service manager does), removes what its site left, stops the control plane. */
  close(): Promise<void>;
}

async function must(answer: Promise<HttpsResponse>, what: string): Promise<HttpsResponse> {
  const response = await answer;
  if (response.status < 200 || response.status > 299) throw new Error(`${what}: HTTP ${response.status}: ${response.body.slice(0, 500)}`);
  return response;
}

function deployment(name: string, replicas: number, { command, cpu, readinessProbe, limits }: BenchWorkload): unknown {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          // sleep, pid 1 of its container, ignores SIGTERM: a short grace keeps deletions short.
          terminationGracePeriodSeconds: 1,
          containers: [{ name: 'c', image: 'host', command, resources: { requests: { cpu, memory: '4Mi' }, ...(limits === undefined ? {} : { limits }) }, ...(readinessProbe === undefined ? {} : { readinessProbe }) }],
        },
      },
    },
  };
}

interface ListedPod {
  readonly metadata: { name: string; uid: string };
  readonly status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
}

/** Resolves once the agent process has exited (SIGKILL after `graceMs`). */
function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * A control plane in this process (memory store, HTTPS: the e2e tests' harness), a virtual site
 * of the customer edges labelled `edge`, virtual cluster `default/bench` placed there, and one
 * runc site run by `edgeplane site --runtime runc --host-image` in its own process, registered
 * with a registration token of the tenant as a user does it; resolves once the site's nodes
 * are Ready in the virtual cluster.
 */
export async function startRuncBenchSite(shape: BenchSiteShape, log: (line: string) => void): Promise<RuncBenchSite> {
  const site = 'bench-a';
  const h: ConfigHarness = await startConfigHarness();
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-bench-runtime-'));
  const home = join(dir, 'agent');
  let agent: ChildProcess | undefined;
  let agentLog = '';
  const agentCgroup = existsSync(CPUACCT) ? `/edgeplane-bench-agent-${process.pid}` : undefined;
  const close = async (): Promise<void> => {
    if (agent !== undefined) await stopProcess(agent, 15_000);
    await removeSiteNetwork(home, site);
    await removeSitesCgroupParent();
    if (agentCgroup !== undefined) await removeCgroup(agentCgroup);
    await h.close();
    rmSync(dir, { recursive: true, force: true });
    const netns = siteNamespaceName(home, site);
    const left = [`/var/run/netns/${netns}`, `/sys/fs/cgroup/memory${siteCgroupParent(netns)}`, runcStateRoot(netns), dir, ...(agentCgroup === undefined ? [] : [`${CPUACCT}${agentCgroup}`])].filter((path) => existsSync(path));
    if (left.length > 0) throw new Error(`the bench site left ${left.join(', ')}`);
  };
  try {
    const post = (path: string, body: unknown): Promise<HttpsResponse> => must(h.call('POST', path, { body }), `POST ${path}`);
    await post('/api/config/namespaces/default/virtual_sites', { metadata: { name: 'edge' }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } });
    await post('/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'bench' }, spec: { vsite_refs: [{ namespace: 'default', name: 'edge' }] } });
    const credential = await post('/api/web/namespaces/system/api_credentials', {
      name: 'kube-bench',
      expiration_days: 1,
      spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'bench', virtual_k8s_namespace: 'default' },
    });
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, Buffer.from(credential.json<{ data: string }>().data, 'base64'), { mode: 0o600 });
    const token = (await post('/api/sites/v1/tokens', { type: 'CUSTOMER_EDGE', ttl_seconds: 600 })).json<{ token: string }>().token;
    const args = [
      EDGEPLANE_BIN, 'site',
      '--name', site, '--type', 'CUSTOMER_EDGE', '--labels', 'edge=true',
      '--nodes', String(shape.nodes), '--cpu', shape.cpu, '--memory', shape.memory,
      '--runtime', 'runc', '--host-image',
      '--home', home,
      '--log-level', 'warn', '--log-format', 'json',
    ];
    log(`edgeplane site --name ${site} --runtime runc --host-image --nodes ${shape.nodes} --cpu ${shape.cpu} --memory ${shape.memory} (its own process)`);
    const child = spawn(process.execPath, args, { env: { ...process.env, EDGEPLANE_REGISTRATION_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
    agent = child;
    if (agentCgroup !== undefined) {
      // Before the agent (still loading its modules) starts anything: what it starts stays in this cgroup.
      mkdirSync(`${CPUACCT}${agentCgroup}`);
      writeFileSync(`${CPUACCT}${agentCgroup}/cgroup.procs`, String(child.pid));
    }
    child.stderr?.on('data', (chunk: Buffer) => (agentLog = (agentLog + chunk.toString()).slice(-20_000)));
    const exited = new Promise<never>((_resolve, reject) => child.once('exit', (code, signal) => reject(new Error(`the site agent exited (${code ?? signal}):\n${agentLog}`))));
    exited.catch(() => undefined);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const nodes = (await must(h.call('GET', `${VK8S}/api/v1/nodes`), 'list nodes')).json<{ items: Array<{ metadata: { name: string }; status?: { conditions?: Array<{ type: string; status: string }> } }> }>().items;
      const ready = nodes.filter((n) => n.metadata.name.startsWith(`${site}-`) && n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true);
      if (ready.length === shape.nodes) break;
      if (Date.now() > deadline) throw new Error(`the site's nodes are not Ready after 60 s (${ready.length} of ${shape.nodes}):\n${agentLog}`);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, 200)), exited]);
    }
    return {
      site,
      agentPid: child.pid ?? 0,
      ...(agentCgroup === undefined ? {} : { agentCgroup }),
      netns: siteNamespaceName(home, site),
      home,
      kubeconfig,
      podWatch: { url: h.url, path: `${VK8S}/api/v1/namespaces/default/pods?watch=true`, ca: h.ca, headers: { authorization: `APIToken ${h.adminToken}` } },
      vk8s: (method, path, body) =>
        must(h.call(method, `${VK8S}${path}`, { ...(body === undefined ? {} : { body }), ...(method === 'PATCH' ? { headers: { 'content-type': 'application/merge-patch+json' } } : {}) }), `${method} ${path}`),
      vk8sWatch: (path) => ({ url: h.url, path: `${VK8S}${path}`, ca: h.ca, headers: { authorization: `APIToken ${h.adminToken}` } }),
      createDeployment: async (name, replicas, workload = IDLE) => void (await must(h.call('POST', DEPLOYMENTS, { body: deployment(name, replicas, workload) }), `create Deployment ${name}`)),
      pods: async (app) => {
        const list = (await must(h.call('GET', `${VK8S}/api/v1/namespaces/default/pods?labelSelector=app%3D${encodeURIComponent(app)}`), `list pods of ${app}`)).json<{ items: ListedPod[] }>().items;
        return list.map((p) => ({
          name: p.metadata.name,
          uid: p.metadata.uid,
          ...(p.status?.podIP === undefined ? {} : { ip: p.status.podIP }),
          ready: p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true,
        }));
      },
      scaleDeployment: async (name, replicas) =>
        void (await must(h.call('PATCH', `${DEPLOYMENTS}/${name}`, { body: { spec: { replicas } }, headers: { 'content-type': 'application/merge-patch+json' } }), `scale Deployment ${name}`)),
      deleteDeployment: async (name) =>
        void (await must(h.call('DELETE', `${DEPLOYMENTS}/${name}`, { body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' } }), `delete Deployment ${name}`)),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
