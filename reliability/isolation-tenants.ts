import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { httpsRequest, type HttpsResponse } from '../src/client/https-client.js';
import { generateEcKeyPair, privateKeyToPem, SIGN_ECDSA_SHA256, x509 } from '../src/common/x509.js';

/** Who calls: an API token, a client certificate, a bearer token, or nothing. */
export type Caller = { readonly token: string } | { readonly cert: string; readonly key: string } | { readonly bearer: string } | Record<string, never>;

export interface Call {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  /** Default `application/json`. */
  readonly contentType?: string;
}

/** Every credential kind of one tenant, and the objects the matrix aims at. */
export interface TenantCredentials {
  /** What the report calls it (the home's tenant is `default`). */
  readonly tenant: string;
  /** The tenant's name on the platform (in cluster references). */
  readonly tenantName: string;
  /** API token with the admin role in every namespace. */
  readonly admin: Caller;
  /** API token with the monitor role in every namespace. */
  readonly monitor: Caller;
  /** The client certificate of a kubeconfig issued for the tenant's virtual cluster. */
  readonly kubeconfig: Caller;
  /** A site registration token (customer edge) the tenant's admin minted. */
  readonly siteToken: Caller;
  /** The certificate of the agent that registered the tenant's site with that token. */
  readonly agent: Caller;
  /** The tenant's virtual cluster `default/<vk8s>`, its ConfigMap, its site and its kubeconfig credential's name. */
  readonly vk8s: string;
  readonly configMap: string;
  readonly site: string;
  readonly credentialName: string;
  /** A pod of the virtual cluster bound to a site, and a pod bootstrap token minted for it (long scale). */
  readonly pod?: { readonly name: string; readonly uid: string; readonly bootstrap: Caller };
}

/** The server under test: its URL and CA, and a request function. */
export class IsolationClient {
  constructor(
    readonly url: string,
    readonly ca: string,
  ) {}

  request(caller: Caller, call: Call): Promise<HttpsResponse> {
    const headers: Record<string, string> = {};
    if ('token' in caller) headers['authorization'] = `APIToken ${caller.token}`;
    if ('bearer' in caller) headers['authorization'] = `Bearer ${caller.bearer}`;
    if (call.body !== undefined) headers['content-type'] = call.contentType ?? 'application/json';
    return httpsRequest(`${this.url}${call.path}`, this.ca, {
      method: call.method,
      headers,
      ...('cert' in caller ? { cert: caller.cert, key: caller.key } : {}),
      ...(call.body === undefined ? {} : { body: typeof call.body === 'string' ? call.body : JSON.stringify(call.body) }),
      timeoutMs: 15_000,
    });
  }

  /** A request that must answer 200; its JSON. */
  async ok<T>(caller: Caller, call: Call): Promise<T> {
    const answer = await this.request(caller, call);
    if (answer.status !== 200 && answer.status !== 201) throw new Error(`${call.method} ${call.path}: ${answer.status} ${answer.body}`);
    return JSON.parse(answer.body) as T;
  }
}

interface Kubeconfig {
  users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
}

const VK8S = (vk8s: string): string => `/api/vk8s/namespaces/default/${vk8s}`;

/**
 * Makes one tenant's credentials and objects through the public APIs, as its admin would:
 * a monitor token, a virtual cluster (placed on the platform's regional edges) with a
 * ConfigMap placed on the tenant's site, a kubeconfig for it, a site registration token and the site it registers.
 * With `pods`, also a one-replica Deployment whose pod is waited for until it runs, and a
 * pod bootstrap token for it.
 */
export async function makeTenant(client: IsolationClient, tenant: string, adminToken: string, options: { pods: boolean }): Promise<TenantCredentials> {
  const admin = { token: adminToken };
  const vk8s = `vk-${tenant}`;
  const configMap = `cm-${tenant}`;
  const site = `ce-${tenant}`;
  const credentialName = `kc-${tenant}`;
  const credential = (name: string, spec: Record<string, unknown>): Promise<{ data: string }> =>
    client.ok(admin, { method: 'POST', path: '/api/web/namespaces/system/api_credentials', body: { name, expiration_days: 1, spec } });
  const monitor = { token: (await credential(`monitor-${tenant}`, { type: 'API_TOKEN', namespace_roles: [{ namespace: '*', role: 'monitor' }] })).data };
  // Credentials name their user `<name>@<tenant>`.
  const listed = await client.ok<{ items: Array<{ name: string; user: string }> }>(admin, { method: 'GET', path: '/api/web/namespaces/system/api_credentials' });
  const tenantName = listed.items.find((c) => c.name === `monitor-${tenant}`)?.user.split('@')[1];
  if (tenantName === undefined) throw new Error(`the credential monitor-${tenant} does not name its tenant`);
  await client.ok(admin, { method: 'POST', path: '/api/config/namespaces/default/virtual_k8ss', body: { metadata: { name: vk8s }, spec: { vsite_refs: [{ namespace: 'svc-io-shared', name: 'all-regional-edges' }] } } });
  const kubeconfigYaml = Buffer.from((await credential(credentialName, { type: 'KUBE_CONFIG', virtual_k8s_name: vk8s, virtual_k8s_namespace: 'default' })).data, 'base64').toString('utf8');
  const user = (parse(kubeconfigYaml) as Kubeconfig).users[0]?.user;
  if (user === undefined) throw new Error(`the kubeconfig of ${tenant} has no user`);
  const pem = (base64: string): string => Buffer.from(base64, 'base64').toString('utf8');
  const kubeconfig = { cert: pem(user['client-certificate-data']), key: pem(user['client-key-data']) };
  await client.ok(kubeconfig, { method: 'POST', path: `${VK8S(vk8s)}/api/v1/namespaces/default/configmaps`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: configMap, annotations: { 'svc.io/sites': `system/${site}` } }, data: { owner: tenant } } });
  const siteToken = { bearer: (await client.ok<{ token: string }>(admin, { method: 'POST', path: '/api/sites/v1/tokens', body: { type: 'CUSTOMER_EDGE' } })).token };
  const keys = await generateEcKeyPair();
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=ignored', keys, signingAlgorithm: SIGN_ECDSA_SHA256 });
  const registered = await client.ok<{ certificate: string }>(siteToken, {
    method: 'POST',
    path: '/api/sites/v1/register',
    body: { agent: `agent-${tenant}`, csr: csr.toString('pem'), sites: [{ name: site, type: 'CUSTOMER_EDGE', nodes: [{ name: 'n0', cpu: '4', memory: '8Gi' }] }] },
  });
  const agent = { cert: registered.certificate, key: await privateKeyToPem(keys.privateKey) };
  const base = { tenant, tenantName, admin, monitor, kubeconfig, siteToken, agent, vk8s, configMap, site, credentialName };
  if (!options.pods) return base;
  return { ...base, pod: await boundPod(client, base) };
}

/** Deploys one replica and waits for its pod to run on a site; mints its bootstrap token. */
async function boundPod(client: IsolationClient, t: Omit<TenantCredentials, 'pod'>): Promise<{ name: string; uid: string; bootstrap: Caller }> {
  const app = `app-${t.tenant}`;
  await client.ok(t.kubeconfig, {
    method: 'POST',
    path: `${VK8S(t.vk8s)}/apis/apps/v1/namespaces/default/deployments`,
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: app, annotations: { 'svc.io/sites': 'svc-io-system/local-re-1' } },
      spec: { replicas: 1, selector: { matchLabels: { app } }, template: { metadata: { labels: { app } }, spec: { containers: [{ name: 'web', image: 'nginx:1.17' }] } } },
    },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const pods = await client.ok<{ items: Array<{ metadata: { name: string; uid: string }; spec: { nodeName?: string }; status?: { containerStatuses?: Array<{ state?: { running?: unknown } }> } }> }>(t.kubeconfig, {
      method: 'GET',
      path: `${VK8S(t.vk8s)}/api/v1/namespaces/default/pods?labelSelector=app%3D${app}`,
    });
    const pod = pods.items.find((p) => p.spec.nodeName !== undefined && p.status?.containerStatuses?.[0]?.state?.running !== undefined);
    if (pod !== undefined) {
      const minted = await client.ok<{ token: string }>(t.admin, { method: 'POST', path: '/api/identity/v1/tokens', body: { namespace: 'default', vk8s: t.vk8s, pod: pod.metadata.name, ttl_seconds: 600 } });
      return { name: pod.metadata.name, uid: pod.metadata.uid, bootstrap: { bearer: minted.token } };
    }
    if (Date.now() > deadline) throw new Error(`no pod of ${app} ran on a site within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The tokens a fresh server home holds: the default tenant's admin and the platform's. */
export function homeTokens(home: string): { admin: string; platform: string } {
  return { admin: readFileSync(join(home, 'api-token'), 'utf8').trim(), platform: readFileSync(join(home, 'platform-api-token'), 'utf8').trim() };
}
