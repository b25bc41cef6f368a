import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest, type HttpsResponse } from '../../../src/client/https-client.js';
import { type CallOptions, startConfigHarness, type ConfigHarness, type ConfigHarnessOptions } from '../../../src/server/testing/config-harness.js';
import type { BootstrapToken } from '../../../src/site-api/identity-bundle.js';
import { startSidecar, type RunningSidecar, type StartSidecarOptions } from '../../../src/sidecar/index.js';
import { registerTestSites, type TestAgent } from '../../../src/site-plane/testing/register-test-sites.js';
import type { Pod } from './multisite-objects.js';
import { waitFor } from './wait-for.js';

/** A workload pod of the environment: its tenant, its vK8s path and the site agent that runs it. */
export interface WorkloadPod {
  readonly tenant: 'acme' | 'globex';
  readonly pod: Pod;
  readonly site: string;
  readonly agent: TestAgent;
}

export interface WorkloadIdentityEnv {
  readonly h: ConfigHarness;
  /** Admin API tokens per tenant. */
  readonly tokens: { readonly acme: string; readonly globex: string };
  /** acme's pods of Deployment `web` (app=web, service account `shop`, Service `web`): one on re-a, one on re-b. */
  readonly acme: readonly WorkloadPod[];
  /** globex's pod of its Deployment `web` (the same names as acme's) on re-a. */
  readonly globex: WorkloadPod;
  /** A bootstrap token for the pod, as its site obtains it when it starts the pod (site API, agent mTLS). */
  siteToken(pod: WorkloadPod): Promise<BootstrapToken>;
  /** Writes the pod's site token into a file (as a site hands it to the sidecar) and returns the path. */
  tokenFile(pod: WorkloadPod): Promise<string>;
  /**
   * Starts a sidecar in this process for the pod (its own identity folder and loopback port
   * 0), trusting the control plane through the token's CA pin, as a site would start it.
   */
  sidecar(pod: WorkloadPod, options?: Partial<StartSidecarOptions>): Promise<RunningSidecar>;
  /** A fresh temporary folder removed by close(). */
  tempDir(label: string): string;
  close(): Promise<void>;
}

const VK8S = '/api/vk8s/namespaces/default/vk1';

/** A request to a control plane's API: `ConfigHarness.call`, or {@link apiCaller} for an `edgeplane server` process. */
export type ApiCall = (method: string, path: string, options?: CallOptions) => Promise<HttpsResponse>;

/** `ConfigHarness.call` against any control plane: JSON, `APIToken <defaultToken>` unless `token` says otherwise. */
export function apiCaller(url: string, ca: string, defaultToken: string): ApiCall {
  return (method, path, o = {}) => {
    const token = o.token === undefined ? defaultToken : o.token;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `APIToken ${token}` }), ...o.headers };
    const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
    return httpsRequest(`${url}${path}`, ca, { method, headers, ...(body === undefined ? {} : { body }), ...(o.cert === undefined ? {} : { cert: o.cert, key: o.key ?? '' }) });
  };
}

async function ok<T>(res: Promise<HttpsResponse>): Promise<T> {
  const answer = await res;
  if (answer.status !== 200 && answer.status !== 201) throw new Error(`HTTP ${answer.status}: ${answer.body}`);
  return answer.json<T>();
}

/**
 * A tenant's workload as the environment deploys it: virtual site `eu` (regional edges labelled
 * svc.io/region=eu), vK8s `vk1`, ServiceAccount `shop`, Service `web` (app=web) and Deployment
 * `web` (one replica per site, service account `shop`). Resolves to its pods once `count` of
 * them are bound to sites.
 */
export async function deployWebWorkload(call: ApiCall, token: string, count: number): Promise<Pod[]> {
  const post = (path: string, body: unknown): Promise<unknown> => ok(call('POST', path, { body, token }));
  await post('/api/config/namespaces/default/virtual_sites', { metadata: { name: 'eu' }, spec: { site_type: 'REGIONAL_EDGE', site_selector: { expressions: ['svc.io/region=eu'] } } });
  await post('/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'eu' }] } });
  await post(`${VK8S}/api/v1/namespaces/default/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'shop' } });
  await post(`${VK8S}/api/v1/namespaces/default/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
  await post(`${VK8S}/apis/apps/v1/namespaces/default/deployments`, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { serviceAccountName: 'shop', containers: [{ name: 'nginx', image: 'nginx:1.17' }] } } },
  });
  // Replicas are per site: one pod on each site of the virtual site.
  return waitFor(`${count} pods of Deployment web bound to sites`, async () => {
    const list = await ok<{ items: Pod[] }>(call('GET', `${VK8S}/api/v1/namespaces/default/pods?labelSelector=app%3Dweb`, { token }));
    return list.items.length === count && list.items.every((p) => p.spec.nodeName !== undefined) ? list.items : undefined;
  });
}

/** A bootstrap token for the pod, as its site obtains it when it starts the pod (site API, the agent's mTLS). */
export function sitePodToken(call: ApiCall, pod: { readonly tenant: string; readonly pod: Pod; readonly agent: TestAgent }): Promise<BootstrapToken> {
  return ok(
    call('POST', '/api/sites/v1/pods/identity-token', {
      token: null,
      cert: pod.agent.cert,
      key: pod.agent.key,
      body: { tenant: pod.tenant, namespace: 'default', vk8s: 'vk1', pod: pod.pod.metadata.name, uid: pod.pod.metadata.uid },
    }),
  );
}

/**
 * The real control plane in this process with two tenants: acme, whose Deployment `web`
 * (service account `shop`, selected by Service `web`) runs one pod on each of the regional
 * edges re-a and re-b, and globex, with the same objects (its pod on re-a is used). Both sites
 * are registered through the site API; the scheduler binds the pods. Sidecars started
 * through {@link WorkloadIdentityEnv.sidecar} are stopped by close().
 */
export async function startWorkloadIdentityEnv(options: ConfigHarnessOptions = {}): Promise<WorkloadIdentityEnv> {
  const h = await startConfigHarness(options);
  const dirs: string[] = [];
  const sidecars: RunningSidecar[] = [];
  const tempDir = (label: string): string => {
    const dir = mkdtempSync(join(tmpdir(), `edgeplane-${label}-`));
    dirs.push(dir);
    return dir;
  };
  try {
    const call: ApiCall = (method, path, o) => h.call(method, path, o);
    const agentA = await registerTestSites(call, { tenant: h.adminToken, platform: h.platformToken }, 'agent-a', [{ name: 're-a', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' } }]);
    const agentB = await registerTestSites(call, { tenant: h.adminToken, platform: h.platformToken }, 'agent-b', [{ name: 're-b', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' } }]);
    const globexToken = (await ok<{ admin_token: string }>(call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'globex' } }))).admin_token;
    const tokens = { acme: h.adminToken, globex: globexToken };

    const deploy = (token: string): Promise<Pod[]> => deployWebWorkload(call, token, 2);
    const siteOf = (pod: Pod): string => pod.metadata.labels?.['svc.io/siteName'] ?? '';
    const agentOf = (site: string): TestAgent => (site === 're-a' ? agentA : agentB);
    const workload = (tenant: WorkloadPod['tenant'], pod: Pod): WorkloadPod => ({ tenant, pod, site: siteOf(pod), agent: agentOf(siteOf(pod)) });

    const acme = (await deploy(tokens.acme)).map((p) => workload('acme', p)).sort((a, b) => a.site.localeCompare(b.site));
    const globexPods = await deploy(tokens.globex);
    const globexOnA = globexPods.find((p) => siteOf(p) === 're-a');
    if (globexOnA === undefined) throw new Error('globex has no pod on re-a');

    const siteToken = (pod: WorkloadPod): Promise<BootstrapToken> => sitePodToken(call, pod);
    const tokenFile = async (pod: WorkloadPod): Promise<string> => {
      const file = join(tempDir('token'), 'token');
      writeFileSync(file, (await siteToken(pod)).token + '\n', { mode: 0o600 });
      return file;
    };
    return {
      h,
      tokens,
      acme,
      globex: workload('globex', globexOnA),
      siteToken,
      tokenFile,
      tempDir,
      sidecar: async (pod, o = {}) => {
        const sidecar = await startSidecar({ server: h.url, tokenFile: await tokenFile(pod), identityDir: tempDir('identity'), listen: ['127.0.0.1:0'], ...o });
        sidecars.push(sidecar);
        return sidecar;
      },
      close: async () => {
        await Promise.all(sidecars.map((s) => s.stop()));
        await h.close();
        for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await h.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
