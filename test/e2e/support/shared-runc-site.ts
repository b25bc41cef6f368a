import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { startConfigHarness, type ConfigHarness } from '../../../src/server/testing/config-harness.js';
import { siteNamespaceName } from '../../../src/site-agent/runtimes/runc/index.js';
import { removeSiteNetwork, removeSitesCgroupParent } from '../../../src/testing/runc-site-cleanup.js';
import { kubectlNewest, runKubectl, type KubectlRun } from '../../../src/vk8s/testing/kubectl.js';
import { waitFor } from './wait-for.js';

const EDGEPLANE_BIN = fileURLToPath(new URL('../../../../bin/edgeplane.js', import.meta.url));

/**
 * The two virtual clusters sharing the site: `vk1` (namespace default, baseline) and `vk2`
 * (namespace team, PRIVILEGED floor: its pods may add NET_ADMIN and NET_RAW on this customer edge).
 */
export type SharedCluster = 'vk1' | 'vk2';
const NAMESPACE: Record<SharedCluster, string> = { vk1: 'default', vk2: 'team' };

export interface SharedPod extends KubeObject {
  status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> };
}

export interface SharedRuncSite {
  readonly h: ConfigHarness;
  readonly site: string;
  /** The agent's home (`--home`). */
  readonly home: string;
  /** The site's network namespace. */
  readonly netns: string;
  /** The newest kubectl against a cluster (its pods live in its own namespace, `default` or `team`). */
  kubectl(cluster: SharedCluster, args: readonly string[], input?: string): Promise<KubectlRun>;
  /** kubectl, asserting success; its stdout. */
  ok(cluster: SharedCluster, args: readonly string[], input?: string): Promise<string>;
  /** The Ready pods labelled `app`. */
  readyPods(cluster: SharedCluster, app: string): Promise<SharedPod[]>;
  /** Every pod uid the test saw (the pod network namespaces that must be gone at the end). */
  readonly seenUids: Set<string>;
  /** Starts the agent process (registering with a token the first time). */
  startAgent(): Promise<void>;
  /** SIGKILLs the agent process, as a crash would: its pods, HAProxy and name servers keep running. */
  killAgent(): Promise<void>;
  /** Stops the agent process with SIGTERM, as an upgrade would: its pods, HAProxy and name servers keep running. */
  stopAgent(): Promise<void>;
  /** The agent's log lines (JSON), all its starts together. */
  agentLog(): string;
  /** GET of the agent's /metrics (the address it logged: EDGEPLANE_METRICS_ADDRESS=127.0.0.1:0). */
  metrics(): Promise<string>;
  close(): Promise<void>;
}

/** Ends the processes whose command line names `dir` (what this test's agents started and left behind: HAProxy, dnsmasq, socket brokers), by pid. */
export function killProcessesNaming(dir: string): void {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmdline = '';
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmdline.includes(dir)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export interface SharedSiteOptions {
  /**
   * A regional edge shared by two tenants instead: `vk1` is the harness tenant's, `vk2` (namespace
   * team) a second tenant's (`beta`), both at the baseline floor; the site is registered with a
   * platform token.
   */
  readonly regionalEdge?: boolean;
  /** More flags of the agent (`edgeplane site`). */
  readonly agentFlags?: readonly string[];
}

/**
 * A runc customer edge shared by two virtual clusters (or, with `regionalEdge`, a regional edge
 * shared by two tenants), its agent an `edgeplane site --runtime
 * runc --host-image` process (so a test can SIGKILL it), the control plane in this process (the
 * e2e harness: memory store, HTTPS). Each cluster has a virtual site selecting the `edge` label
 * and a kubeconfig of its own.
 */
export async function startSharedRuncSite(site: string, options: SharedSiteOptions = {}): Promise<SharedRuncSite> {
  assert.equal(process.getuid?.(), 0, 'the runc runtime tests need root');
  const h = await startConfigHarness({ siteGraceSeconds: 5 });
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-shared-'));
  // A regional edge's pods run in user namespaces: runc, as a namespace's root, passes through the folders above them.
  chmodSync(dir, 0o711);
  const home = join(dir, 'agent');
  const netns = siteNamespaceName(home, site);
  let agent: ChildProcess | undefined;
  let log = '';
  let token: string | undefined;
  const seenUids = new Set<string>();
  /** Each cluster's tenant's admin token (both the harness tenant's unless a regional edge). */
  const tokens: Record<SharedCluster, string> = { vk1: h.adminToken, vk2: h.adminToken };
  const stopAgent = async (signal: NodeJS.Signals): Promise<void> => {
    const child = agent;
    agent = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.kill(signal);
    await exited;
    clearTimeout(timer);
  };
  const close = async (): Promise<void> => {
    await stopAgent('SIGTERM');
    killProcessesNaming(dir);
    await removeSiteNetwork(home, site);
    await removeSitesCgroupParent();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  };
  const kubeconfigOf = (cluster: SharedCluster): string => join(dir, `kubeconfig-${cluster}`);
  const kubectl = (cluster: SharedCluster, args: readonly string[], input?: string): Promise<KubectlRun> =>
    runKubectl(kubectlNewest(), ['-n', NAMESPACE[cluster], ...args], { kubeconfig: kubeconfigOf(cluster), cacheDir: join(dir, `kube-cache-${cluster}`), ...(input === undefined ? {} : { input }) });
  const startAgent = async (): Promise<void> => {
    const args = [
      EDGEPLANE_BIN, 'site',
      '--name', site, '--type', options.regionalEdge === true ? 'REGIONAL_EDGE' : 'CUSTOMER_EDGE', '--labels', 'edge=true',
      '--nodes', '1', '--cpu', '8', '--memory', '16Gi',
      '--runtime', 'runc', '--host-image',
      '--home', home, '--heartbeat-seconds', '1',
      '--log-level', 'info', '--log-format', 'json',
      ...(options.agentFlags ?? []),
    ];
    const env = { ...process.env, EDGEPLANE_METRICS_ADDRESS: '127.0.0.1:0', ...(token === undefined ? {} : { EDGEPLANE_REGISTRATION_TOKEN: token }) };
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    agent = child;
    let own = '';
    const keep = (chunk: Buffer): void => {
      own = (own + chunk.toString()).slice(-400_000);
      log = (log + chunk.toString()).slice(-400_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    token = undefined;
    await waitFor('the site agent running', () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the site agent exited (${child.exitCode ?? child.signalCode}):\n${own.slice(-4000)}`);
      return Promise.resolve(own.includes('"msg":"site agent running"') ? true : undefined);
    }, { timeoutMs: 60_000, intervalMs: 100 });
  };
  try {
    const siteType = options.regionalEdge === true ? 'REGIONAL_EDGE' : 'CUSTOMER_EDGE';
    if (options.regionalEdge === true) {
      const beta = await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'beta' } });
      assert.equal(beta.status, 200, beta.body);
      tokens.vk2 = beta.json<{ admin_token: string }>().admin_token;
    }
    for (const [cluster, path, body] of [
      ['vk2', '/api/web/namespaces', { metadata: { name: 'team' } }],
      ['vk1', '/api/config/namespaces/default/virtual_sites', { metadata: { name: 'edge' }, spec: { site_type: siteType, site_selector: { expressions: ['edge'] } } }],
      ['vk2', '/api/config/namespaces/team/virtual_sites', { metadata: { name: 'edge' }, spec: { site_type: siteType, site_selector: { expressions: ['edge'] } } }],
      ['vk1', '/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'edge' }] } }],
      [
        'vk2',
        '/api/config/namespaces/team/virtual_k8ss',
        { metadata: { name: 'vk2' }, spec: { vsite_refs: [{ namespace: 'team', name: 'edge' }], ...(options.regionalEdge === true ? {} : { pod_security_floor: 'PRIVILEGED' }) } },
      ],
    ] as const) {
      const created = await h.call('POST', path, { body, token: tokens[cluster] });
      assert.equal(created.status, 200, `${path}: ${created.body}`);
    }
    for (const cluster of ['vk1', 'vk2'] as const) {
      const credential = await h.call('POST', '/api/web/namespaces/system/api_credentials', {
        token: tokens[cluster],
        body: { name: `kube-${cluster}`, expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: cluster, virtual_k8s_namespace: NAMESPACE[cluster] } },
      });
      assert.equal(credential.status, 200, credential.body);
      writeFileSync(kubeconfigOf(cluster), Buffer.from(credential.json<{ data: string }>().data, 'base64'), { mode: 0o600 });
    }
    const minter = options.regionalEdge === true ? h.platformToken : h.adminToken;
    const issued = await h.call('POST', '/api/sites/v1/tokens', { token: minter, body: { type: siteType, ttl_seconds: 600 } });
    assert.equal(issued.status, 200, issued.body);
    token = issued.json<{ token: string }>().token;
    await startAgent();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    h,
    site,
    home,
    netns,
    kubectl,
    ok: async (cluster, args, input) => {
      const result = await kubectl(cluster, args, input);
      assert.equal(result.status, 0, `kubectl ${args.join(' ')}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    readyPods: async (cluster, app) => {
      const path = `/api/vk8s/namespaces/${NAMESPACE[cluster]}/${cluster}/api/v1/namespaces/${NAMESPACE[cluster]}/pods?labelSelector=app%3D${app}`;
      const answer = await h.call('GET', path, { token: tokens[cluster] });
      assert.equal(answer.status, 200, answer.body);
      const pods = answer.json<{ items: SharedPod[] }>().items;
      for (const pod of pods) if (pod.metadata.uid !== undefined) seenUids.add(pod.metadata.uid);
      return pods.filter((p) => p.metadata.deletionTimestamp === undefined && p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true);
    },
    seenUids,
    startAgent,
    killAgent: () => stopAgent('SIGKILL'),
    stopAgent: () => stopAgent('SIGTERM'),
    agentLog: () => log,
    metrics: async () => {
      const line = log.split('\n').reverse().find((l) => l.includes('"msg":"agent metrics listening"'));
      assert.ok(line !== undefined, 'the agent logged no metrics address');
      const { address } = JSON.parse(line) as { address: string };
      const response = await fetch(`http://${address}/metrics`);
      assert.equal(response.status, 200);
      return response.text();
    },
    close,
  };
}
