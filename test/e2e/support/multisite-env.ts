import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConfigHarness, type ConfigHarness } from '../../../src/server/testing/config-harness.js';
import { createLogger } from '../../../src/observability/logger.js';
import type { RegisterSite } from '../../../src/site-api/site-api-types.js';
import { startSiteAgent, type SiteAgent } from '../../../src/site-agent/site-agent.js';
import type { RegisteredRuntime } from '../../../src/site-agent/site-specs.js';
import type { SiteType } from '../../../src/site-api/site-model.js';
import { kubectl120, kubectlNewest, runKubectl, type KubectlRun } from '../../../src/vk8s/testing/kubectl.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import type { KubectlClient } from './kubectl-matrix.js';
import { countBySite, isReady, podsPath, type Pod } from './multisite-objects.js';
import { offsetClock, type OffsetClock } from './offset-clock.js';
import { waitFor } from './wait-for.js';

/** The virtual cluster's API under the control plane (for polling reads with the tenant admin's token). */
const VK8S = '/api/vk8s/namespaces/default/vk1';

/** A site of the environment and the agent that runs it (one agent per site, so one can stop alone). */
interface SiteSetup extends RegisterSite {
  readonly agent: string;
}

/**
 * The three sites: two regional edges (`re-a` in eu, `re-b` in us with a per-vK8s quota of
 * 2 CPUs and 4 GiB) and the tenant's customer edge `ce-1`; one node each.
 */
const SITES: readonly SiteSetup[] = [
  { agent: 'agent-re-a', name: 're-a', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' }, nodes: [{ name: 'n0', cpu: '8', memory: '16Gi' }] },
  { agent: 'agent-re-b', name: 're-b', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'us' }, nodes: [{ name: 'n0', cpu: '8', memory: '16Gi' }], quota: { cpu: '2', memory: '4Gi' } },
  { agent: 'agent-ce-1', name: 'ce-1', type: 'CUSTOMER_EDGE', labels: { 'svc.io/region': 'eu', store: 'paris' }, nodes: [{ name: 'n0', cpu: '4', memory: '8Gi' }] },
];

interface RunOptions {
  readonly input?: string;
}

/** The control plane, three sites joined through the site API, a virtual cluster and both kubectls. */
export interface MultisiteEnv {
  readonly h: ConfigHarness;
  readonly clock: OffsetClock;
  readonly dir: string;
  /** kubectl 1.20 and the newest kubectl. */
  readonly clients: readonly KubectlClient[];
  /** The newest kubectl (scenarios that need one). */
  readonly kubectl: KubectlClient;
  run(client: KubectlClient, args: readonly string[], options?: RunOptions): Promise<KubectlRun>;
  /** Runs kubectl, asserts exit code 0, returns stdout. */
  ok(client: KubectlClient, args: readonly string[], options?: RunOptions): Promise<string>;
  /** `kubectl … -o json` parsed. */
  json<T = KubeObject>(client: KubectlClient, args: readonly string[]): Promise<T>;
  /** Applies a YAML document with `kubectl apply -f -`. */
  apply(client: KubectlClient, yaml: string): Promise<string>;
  /** GET on the virtual cluster's API (`apis/apps/v1/namespaces/default/deployments/web`); undefined on 404. */
  read<T = KubeObject>(path: string): Promise<T | undefined>;
  /** The items of a list on the virtual cluster's API (`api/v1/namespaces/default/pods?labelSelector=…`). */
  list<T = KubeObject>(path: string): Promise<T[]>;
  /** Waits until the pods of `selector` are `expected` live pods per site (sites in name order), all Running and Ready, none terminating. */
  settled(selector: string, expected: Record<string, number>): Promise<Pod[]>;
  /** A site's config object (as the config API answers it). */
  site(name: string): Promise<ConfigObject>;
  /** Replaces a site's labels through the config API (PUT), as an operator does. */
  relabel(name: string, change: (labels: Record<string, string>) => void): Promise<void>;
  /** Stops a site's agent (its heartbeats stop; the control plane is not told). */
  stopSite(name: string): Promise<void>;
  /** Starts a stopped site's agent again, with the credential it stored (no token). */
  restartSite(name: string): Promise<void>;
  close(): Promise<void>;
}

interface ConfigObject {
  readonly metadata: { name: string; namespace: string; labels: Record<string, string> } & Record<string, unknown>;
  readonly spec: Record<string, unknown>;
  readonly status?: ReadonlyArray<{ state?: string }>;
  readonly [key: string]: unknown;
}

const namespaceOf = (type: SiteType): string => (type === 'REGIONAL_EDGE' ? 'svc-io-system' : 'system');

/**
 * Starts the environment: the real control plane (memory store, HTTPS, site grace period
 * 3 s, an offset clock with the CronJob controller's timers on it), virtual sites `default/regional` (both regional edges, the vK8s
 * default), `default/eu` (regional edges in eu) and `default/stores` (customer edges of a
 * store), virtual cluster `default/vk1`, a KUBE_CONFIG credential, and one simulated agent
 * per site (short delays) registered with tokens from `/api/sites/v1/tokens`.
 * `registerRuntimes`: sites registered with another runtime than the simulated one their
 * agent runs (a site registered as runc gets its pods' sidecar injected).
 */
export async function startMultisiteEnv(options: { readonly registerRuntimes?: Readonly<Record<string, RegisteredRuntime>> } = {}): Promise<MultisiteEnv> {
  const clock = offsetClock();
  const h = await startConfigHarness({ siteGraceSeconds: 3, clock, clockTimers: clock.timers });
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-multisite-'));
  const agents = new Map<string, SiteAgent>();
  const logger = createLogger({ level: 'silent' });
  const startAgent = (agent: string, site: RegisterSite, token?: string): Promise<SiteAgent> =>
    startSiteAgent({
      home: join(dir, 'agents', agent),
      agent,
      sites: [site],
      ...(token === undefined ? {} : { token }),
      server: h.url,
      heartbeatSeconds: 1,
      ...(options.registerRuntimes?.[site.name] === undefined ? {} : { registerRuntime: options.registerRuntimes[site.name] }),
      sim: { startMs: 100, readyMs: 100, runMs: 300, stopMs: 50 },
      statusFlushMs: 20,
      logger,
    });
  const closeAll = async (): Promise<void> => {
    await Promise.all([...agents.values()].map((a) => a.close(1000)));
    agents.clear();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const post = async (path: string, body: unknown, token?: string): Promise<void> => {
      const answer = await h.call('POST', path, { body, ...(token === undefined ? {} : { token }) });
      assert.equal(answer.status, 200, `POST ${path}: ${answer.body}`);
    };
    const vsite = (name: string, type: SiteType, expression: string): Promise<void> =>
      post('/api/config/namespaces/default/virtual_sites', { metadata: { name }, spec: { site_type: type, site_selector: { expressions: [expression] } } });
    await vsite('regional', 'REGIONAL_EDGE', 'svc.io/region in (eu, us)');
    await vsite('eu', 'REGIONAL_EDGE', 'svc.io/region=eu');
    await vsite('stores', 'CUSTOMER_EDGE', 'store');
    await post('/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'regional' }] } });
    const credential = await h.call('POST', '/api/web/namespaces/system/api_credentials', {
      body: { name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } },
    });
    assert.equal(credential.status, 200, credential.body);
    writeFileSync(join(dir, 'kubeconfig'), Buffer.from(credential.json<{ data: string }>().data, 'base64'));

    for (const { agent, ...site } of SITES) {
      const issued = await h.call('POST', '/api/sites/v1/tokens', { token: site.type === 'REGIONAL_EDGE' ? h.platformToken : h.adminToken, body: { type: site.type, ttl_seconds: 600 } });
      assert.equal(issued.status, 200, issued.body);
      agents.set(site.name, await startAgent(agent, site, issued.json<{ token: string }>().token));
    }
    await Promise.all([...agents.values()].map((a) => a.firstHeartbeat));
  } catch (error) {
    await closeAll();
    throw error;
  }

  const kubeconfig = join(dir, 'kubeconfig');
  const clients: KubectlClient[] = [
    { label: 'kubectl 1.20', binary: kubectl120(), tag: 'old' },
    { label: 'newest kubectl', binary: kubectlNewest(), tag: 'new' },
  ];
  const run = (client: KubectlClient, args: readonly string[], o: RunOptions = {}): Promise<KubectlRun> =>
    runKubectl(client.binary, args, { kubeconfig, cacheDir: join(dir, `cache-${client.tag}`), ...o });
  const ok = async (client: KubectlClient, args: readonly string[], o?: RunOptions): Promise<string> => {
    const result = await run(client, args, o);
    assert.equal(result.status, 0, `${client.label} ${args.join(' ')}: ${result.stderr}${result.stdout}`);
    return result.stdout;
  };
  const siteNamespace = (name: string): string => namespaceOf(SITES.find((s) => s.name === name)?.type ?? 'CUSTOMER_EDGE');
  const tokenFor = (name: string): string => (siteNamespace(name) === 'svc-io-system' ? h.platformToken : h.adminToken);
  const site = async (name: string): Promise<ConfigObject> => {
    const answer = await h.call('GET', `/api/config/namespaces/${siteNamespace(name)}/sites/${name}`, { token: tokenFor(name) });
    assert.equal(answer.status, 200, answer.body);
    return answer.json<ConfigObject>();
  };
  const read = async <T>(path: string): Promise<T | undefined> => {
    const answer = await h.call('GET', `${VK8S}/${path}`);
    if (answer.status === 404) return undefined;
    assert.equal(answer.status, 200, `GET ${path}: ${answer.body}`);
    return answer.json<T>();
  };

  const env: MultisiteEnv = {
    h,
    clock,
    dir,
    clients,
    kubectl: clients[1] as KubectlClient,
    run,
    ok,
    json: async <T>(client: KubectlClient, args: readonly string[]) => JSON.parse(await ok(client, [...args, '-o', 'json'])) as T,
    apply: (client, yaml) => ok(client, ['apply', '-f', '-'], { input: yaml }),
    read,
    list: async <T>(path: string) => (await read<{ items: T[] }>(path))?.items ?? [],
    site,
    settled: (selector, expected) =>
      waitFor(
        `pods ${selector} running ${JSON.stringify(expected)}`,
        async () => {
          const pods = await env.list<Pod>(podsPath(selector));
          const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
          return JSON.stringify(countBySite(pods)) === JSON.stringify(expected) && live.length === pods.length && live.every(isReady) ? live : undefined;
        },
        { describe: async () => JSON.stringify((await env.list<Pod>(podsPath(selector))).map((p) => [p.metadata.name, p.spec.nodeName, p.status?.phase, isReady(p), p.metadata.deletionTimestamp])) },
      ),
    relabel: async (name, change) => {
      const current = await site(name);
      const labels = { ...current.metadata.labels };
      change(labels);
      const answer = await h.call('PUT', `/api/config/namespaces/${siteNamespace(name)}/sites/${name}`, {
        token: tokenFor(name),
        body: { metadata: { ...current.metadata, labels }, spec: current.spec },
      });
      assert.equal(answer.status, 200, answer.body);
    },
    stopSite: async (name) => {
      const agent = agents.get(name);
      assert.ok(agent, `no agent runs site ${name}`);
      agents.delete(name);
      await agent.close(1000);
    },
    restartSite: async (name) => {
      const setup = SITES.find((s) => s.name === name);
      assert.ok(setup !== undefined && !agents.has(name), `site ${name} is not a stopped site`);
      const { agent, ...site } = setup;
      const started = await startAgent(agent, site);
      agents.set(name, started);
      await started.firstHeartbeat;
    },
    close: closeAll,
  };
  // Ready when the vK8s shows a Ready node of every site.
  await waitFor('a Ready node of every site in the virtual cluster', async () => {
    const nodes = await env.list<KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } }>('api/v1/nodes');
    const ready = nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    return ready.length === SITES.length ? true : undefined;
  });
  return env;
}
