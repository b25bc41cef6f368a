import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startConfigHarness, type ConfigHarness } from '../../../src/server/testing/config-harness.js';
import { createLogger } from '../../../src/observability/logger.js';
import type { RegisterSite } from '../../../src/site-api/site-api-types.js';
import type { SiteType } from '../../../src/site-api/site-model.js';
import { startSiteAgent, type SiteAgent } from '../../../src/site-agent/site-agent.js';
import type { PodRuntime } from '../../../src/site-agent/pod-runtime.js';
import { runcStateRoot, siteCgroupParent, siteNamespaceName, type RuncAgentOptions } from '../../../src/site-agent/runtimes/runc/index.js';
import { removeSiteNetwork, removeSitesCgroupParent } from '../../../src/testing/runc-site-cleanup.js';
import { kubectlNewest, runKubectl, type KubectlRun } from '../../../src/vk8s/testing/kubectl.js';
import type { KubeObject } from '../../../src/apimachinery/object.js';
import { toolPath } from '../../../src/testing/tools.js';
import type { Timers } from '../../../src/common/timers.js';

/** The virtual cluster's API under the control plane. */
const VK8S = '/api/vk8s/namespaces/default/vk1';

export interface RuncSiteEnv {
  readonly h: ConfigHarness;
  readonly dir: string;
  readonly sites: readonly RuncTestSite[];
  /** Runs the newest kubectl against the virtual cluster (`vk1`). */
  kubectl(args: readonly string[], input?: string): Promise<KubectlRun>;
  /** kubectl against another virtual cluster of the env (see `clusters`), asserting success; its stdout. */
  okIn(cluster: string, args: readonly string[], input?: string): Promise<string>;
  /** kubectl, asserting success; its stdout. */
  ok(args: readonly string[], input?: string): Promise<string>;
  /** GET on the virtual cluster's API; undefined on 404. */
  read<T = KubeObject>(path: string): Promise<T | undefined>;
  /** The agent's home of a site (its image store is `<home>/images`). */
  home(site: string): string;
  /** The site's network namespace (for checks from inside it). */
  netns(site: string): string;
  /** The pod runtime of a site's agent (its `streams` serve logs, exec, attach and port-forward). */
  runtime(site: string): PodRuntime;
  /** Stops a site's agent (its pods keep running) and starts it again; `whileStopped` runs in between. */
  restartAgent(site: string, whileStopped?: () => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/**
 * The control plane (memory store, HTTPS), a virtual site `default/edge` of the sites (of the
 * sites' type: customer edges unless they say) labelled `edge`, virtual cluster `default/vk1`
 * (and the `clusters` asked for) placed there, a kubeconfig each, and one runc site agent per
 * name in `sites` (in this process, `--host-image`), each registered with a token of the
 * tenant (of the platform for a regional edge).
 */
export interface RuncTestSite {
  readonly name: string;
  /** Runs pods whose image it lacks on the host's programs. */
  readonly hostImage: boolean;
  /** CUSTOMER_EDGE unless it says (every site of an env is of one type). */
  readonly type?: SiteType;
}

interface RuncSiteEnvOptions {
  /** The agents' sweep period of the folders of claims that are gone (default: the agent's). */
  readonly claimSweepMs?: number;
  /** The pods' certificates' lifetime (default the server's, 24 h). */
  readonly identityCertificateLifetimeMs?: number;
  /** The agents' clock (an offset clock lets a test skip a crash back-off). */
  readonly timers?: Timers;
  /** More virtual clusters placed on the same sites, besides `vk1`, each in a platform namespace of its name (kubectl through `okIn`). */
  readonly clusters?: readonly string[];
  /** The agents' disk options: how often pods' storage is checked, the site's cap, the containers' log rotation (default: the agent's). */
  readonly disk?: Pick<RuncAgentOptions, 'storageCheckMs' | 'siteEphemeralStorageBytes' | 'containerLogs'>;
}

export async function startRuncSiteEnv(sites: readonly RuncTestSite[], options: RuncSiteEnvOptions = {}): Promise<RuncSiteEnv> {
  assert.equal(process.getuid?.(), 0, 'the runc runtime tests need root');
  const h = await startConfigHarness({
    siteGraceSeconds: 5,
    ...(options.identityCertificateLifetimeMs === undefined ? {} : { identityCertificateLifetimeMs: options.identityCertificateLifetimeMs }),
  });
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-runc-'));
  // As /var/lib/containerd: others may pass (never list), so runc can reach a user-namespaced pod's root from inside its namespace.
  chmodSync(dir, 0o711);
  mkdirSync(join(dir, 'agents'));
  chmodSync(join(dir, 'agents'), 0o711);
  const siteType: SiteType = sites[0]?.type ?? 'CUSTOMER_EDGE';
  const clusters = ['vk1', ...(options.clusters ?? [])];
  const agents = new Map<string, SiteAgent>();
  const logger = createLogger({ level: process.env['EDGEPLANE_TEST_LOG'] ?? 'silent' });
  const homeOf = (site: string): string => join(dir, 'agents', site);
  const specOf = (site: string): RegisterSite => ({ name: site, type: siteType, labels: { edge: 'true' }, nodes: [{ name: 'n0', cpu: '2', memory: '4Gi' }] });
  const hostImageOf = (site: string): boolean => sites.find((s) => s.name === site)?.hostImage ?? false;
  const startAgent = (site: string, token?: string): Promise<SiteAgent> =>
    startSiteAgent({
      home: homeOf(site),
      agent: site,
      sites: [specOf(site)],
      ...(token === undefined ? {} : { token }),
      server: h.url,
      heartbeatSeconds: 1,
      runtime: 'runc',
      runc: { hostImage: hostImageOf(site), ...(options.claimSweepMs === undefined ? {} : { claimSweepMs: options.claimSweepMs }), ...options.disk },
      statusFlushMs: 20,
      logger,
      ...(options.timers === undefined ? {} : { timers: options.timers }),
    });
  const closeAll = async (): Promise<void> => {
    await Promise.all([...agents.values()].map((a) => a.close(1000)));
    agents.clear();
    await h.close();
    for (const site of sites) await removeSiteNetwork(homeOf(site.name), site.name);
    await removeSitesCgroupParent();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const post = async (path: string, body: unknown): Promise<void> => {
      const answer = await h.call('POST', path, { body });
      assert.equal(answer.status, 200, `POST ${path}: ${answer.body}`);
    };
    for (const cluster of clusters) {
      // A platform namespace holds one virtual cluster: vk1 is default's, another has a namespace of its name.
      const namespace = cluster === 'vk1' ? 'default' : cluster;
      if (namespace !== 'default') await post('/api/web/namespaces', { metadata: { name: namespace } });
      await post(`/api/config/namespaces/${namespace}/virtual_sites`, { metadata: { name: 'edge' }, spec: { site_type: siteType, site_selector: { expressions: ['edge'] } } });
      await post(`/api/config/namespaces/${namespace}/virtual_k8ss`, { metadata: { name: cluster }, spec: { vsite_refs: [{ namespace, name: 'edge' }] } });
      const credential = await h.call('POST', '/api/web/namespaces/system/api_credentials', {
        body: { name: `kube-${cluster}`, expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: cluster, virtual_k8s_namespace: namespace } },
      });
      assert.equal(credential.status, 200, credential.body);
      writeFileSync(join(dir, cluster === 'vk1' ? 'kubeconfig' : `kubeconfig-${cluster}`), Buffer.from(credential.json<{ data: string }>().data, 'base64'));
    }
    for (const { name: site } of sites) {
      mkdirSync(homeOf(site));
      chmodSync(homeOf(site), 0o711);
      const token = siteType === 'REGIONAL_EDGE' ? h.platformToken : h.adminToken;
      const issued = await h.call('POST', '/api/sites/v1/tokens', { token, body: { type: siteType, ttl_seconds: 600 } });
      assert.equal(issued.status, 200, issued.body);
      agents.set(site, await startAgent(site, issued.json<{ token: string }>().token));
    }
    await Promise.all([...agents.values()].map((a) => a.firstHeartbeat));
  } catch (error) {
    await closeAll();
    throw error;
  }
  const kubectl = (args: readonly string[], input?: string): Promise<KubectlRun> =>
    runKubectl(kubectlNewest(), args, { kubeconfig: join(dir, 'kubeconfig'), cacheDir: join(dir, 'kube-cache'), ...(input === undefined ? {} : { input }) });
  return {
    h,
    dir,
    sites,
    kubectl,
    okIn: async (cluster, args, input) => {
      const result = await runKubectl(kubectlNewest(), args, { kubeconfig: join(dir, `kubeconfig-${cluster}`), cacheDir: join(dir, `kube-cache-${cluster}`), ...(input === undefined ? {} : { input }) });
      assert.equal(result.status, 0, `kubectl ${args.join(' ')} (${cluster}): ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    ok: async (args, input) => {
      const result = await kubectl(args, input);
      assert.equal(result.status, 0, `kubectl ${args.join(' ')}: ${result.stderr}${result.stdout}`);
      return result.stdout;
    },
    read: async <T>(path: string) => {
      const answer = await h.call('GET', `${VK8S}/${path}`);
      if (answer.status === 404) return undefined;
      assert.equal(answer.status, 200, `GET ${path}: ${answer.body}`);
      return answer.json<T>();
    },
    home: homeOf,
    runtime: (site) => {
      const agent = agents.get(site);
      assert.ok(agent !== undefined, `no agent for ${site}`);
      return agent.runtime;
    },
    netns: (site) => siteNamespaceName(homeOf(site), site),
    restartAgent: async (site, whileStopped) => {
      await agents.get(site)?.close(1000);
      await whileStopped?.();
      const agent = await startAgent(site);
      agents.set(site, agent);
      await agent.firstHeartbeat;
    },
    close: closeAll,
  };
}

/** What a site left on the machine that belongs to pods: pod namespaces, conmon processes, pod cgroups, mounts under its home. */
export function podLeftovers(env: RuncSiteEnv, site: string): string[] {
  const found: string[] = [];
  const home = join(env.dir, 'agents', site);
  const siteNetns = env.netns(site);
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const mountPoint = line.split(' ')[4];
    if (mountPoint !== undefined && mountPoint.startsWith(home)) found.push(`mount ${mountPoint}`);
  }
  const podsDir = join(home, 'runc', site, 'pods');
  if (existsSync(podsDir)) for (const uid of readdirSync(podsDir)) found.push(`pod folder ${uid}`);
  const cgroupSite = join('/sys/fs/cgroup/memory', siteCgroupParent(siteNetns));
  if (existsSync(cgroupSite)) for (const uid of readdirSync(cgroupSite, { withFileTypes: true }).filter((e) => e.isDirectory())) found.push(`cgroup ${uid.name}`);
  const runcRoot = runcStateRoot(siteNetns);
  if (existsSync(runcRoot)) for (const id of readdirSync(runcRoot)) found.push(`runc state ${id}`);
  const links = execFileSync(toolPath('ip'), ['-n', siteNetns, '-o', 'link', 'show'], { encoding: 'utf8' });
  for (const line of links.split('\n')) if (/^\d+: veth/.test(line)) found.push(`veth ${line.split(':')[1]?.trim() ?? ''}`);
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    const cmdline = (() => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        return '';
      }
    })();
    if (cmdline.includes(runcRoot)) found.push(`process ${pid} ${cmdline.split('\0').slice(0, 3).join(' ')}`);
  }
  return found;
}
