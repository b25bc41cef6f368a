import type { HttpsResponse } from '../src/client/https-client.js';
import type { Call, Caller, TenantCredentials } from './isolation-tenants.js';

export const APIS = ['configuration', 'vK8s', 'identity', 'secret', 'site', 'web'] as const;
export type Api = (typeof APIS)[number];

/**
 * One cell of the matrix: a credential, a request, and what must happen. A `cross` cell
 * crosses a boundary (another tenant's objects, another virtual cluster, a kubeconfig on a
 * platform API, a monitor writing, a site or pod credential off its API) and must be denied;
 * an `own` cell is a control inside the boundary and must be allowed, so that a server that
 * refuses everything fails too.
 */
export interface Cell {
  readonly api: Api;
  readonly verb: string;
  readonly boundary: 'cross' | 'own';
  /** Who on what, e.g. "alpha's kubeconfig on beta's virtual cluster". */
  readonly what: string;
  /** Part of the short scale (one verb per API and boundary). */
  readonly short?: boolean;
  readonly caller: Caller;
  readonly call: Call;
  /** What the answer must be, in words (`403/404`, `200`, `200 without beta's objects`). */
  readonly expected: string;
  /** Undefined when the answer is as expected; else what is wrong. */
  judge(answer: HttpsResponse): string | undefined;
}

/** The denials the APIs document: 401 unauthenticated, 403 forbidden, 404 to hide another tenant's objects. */
const DENIED = [401, 403, 404];

function status(codes: readonly number[]): Pick<Cell, 'expected' | 'judge'> {
  return {
    expected: codes.join('/'),
    judge: (answer) => (codes.includes(answer.status) ? undefined : `answered ${answer.status}: ${answer.body.slice(0, 200)}`),
  };
}
const denied = status(DENIED);
const allowed = status([200, 201]);
/** A list answered for the caller's own tenant: allowed, but it must not show `hidden`. */
const hides = (hidden: string): Pick<Cell, 'expected' | 'judge'> => ({
  expected: `${DENIED.join('/')}, or 200 without ${hidden}`,
  judge: (answer) => (DENIED.includes(answer.status) ? undefined : answer.status !== 200 ? `answered ${answer.status}` : answer.body.includes(hidden) ? `the answer shows ${hidden}` : undefined),
});
/** Allowed, and the answer shows `name`. */
const shows = (name: string): Pick<Cell, 'expected' | 'judge'> => ({
  expected: `200 with ${name}`,
  judge: (answer) => (answer.status === 200 && answer.body.includes(`"${name}"`) ? undefined : `answered ${answer.status}: ${answer.body.slice(0, 200)}`),
});
/**
 * Past authorization to the pod streams: 200, or the answer of the streams backend the server
 * runs while no site serves streams (kubelet's 400 for a container not running).
 */
const reachedStreams: Pick<Cell, 'expected' | 'judge'> = {
  expected: "200, or the streams backend's 400 \"is waiting to start\"",
  judge: (answer) => (answer.status === 200 || (answer.status === 400 && answer.body.includes('is waiting to start')) ? undefined : `answered ${answer.status}: ${answer.body.slice(0, 200)}`),
};
/** The site API's per-pod results: the write for another tenant's pod must be refused in its result. */
const refusedItem: Pick<Cell, 'expected' | 'judge'> = {
  expected: '403/404, or 200 with the item refused (403/404)',
  judge: (answer) => {
    if (DENIED.includes(answer.status)) return undefined;
    if (answer.status !== 200) return `answered ${answer.status}`;
    const code = (JSON.parse(answer.body) as { results?: Array<{ code?: number }> }).results?.[0]?.code;
    return code !== undefined && DENIED.includes(code) ? undefined : `the item was accepted: ${answer.body.slice(0, 200)}`;
  },
};

const vk = (t: TenantCredentials): string => `/api/vk8s/namespaces/default/${t.vk8s}`;
const configMaps = (t: TenantCredentials): string => `${vk(t)}/api/v1/namespaces/default/configmaps`;
const configMap = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
const mergePatch = (body: unknown): Pick<Call, 'body' | 'contentType'> => ({ body, contentType: 'application/merge-patch+json' });

/** The cells where `a` attacks `b`, and `a`'s own controls. */
export function isolationCells(a: TenantCredentials, b: TenantCredentials): Cell[] {
  const cells: Cell[] = [];
  const add = (api: Api, verb: string, boundary: Cell['boundary'], what: string, caller: Caller, call: Call, expectation: Pick<Cell, 'expected' | 'judge'>, short = false): void => {
    cells.push({ api, verb, boundary, what, caller, call, ...expectation, ...(short ? { short } : {}) });
  };
  const A = a.tenant;
  const B = b.tenant;
  const vkB = `/api/config/namespaces/default/virtual_k8ss/${b.vk8s}`;

  // The configuration API: the tenant comes from the credential, so another tenant's objects are not found.
  add('configuration', 'get', 'cross', `${A}'s admin token on ${B}'s virtual_k8s`, a.admin, { method: 'GET', path: vkB }, denied, true);
  add('configuration', 'list', 'cross', `${A}'s admin token listing virtual_k8ss`, a.admin, { method: 'GET', path: '/api/config/namespaces/default/virtual_k8ss' }, hides(b.vk8s));
  add('configuration', 'update', 'cross', `${A}'s admin token replacing ${B}'s virtual_k8s`, a.admin, { method: 'PUT', path: vkB, body: { metadata: { name: b.vk8s }, spec: {} } }, denied);
  add('configuration', 'delete', 'cross', `${A}'s admin token deleting ${B}'s virtual_k8s`, a.admin, { method: 'DELETE', path: vkB }, denied);
  add('configuration', 'create', 'cross', `${A}'s monitor token creating a virtual_k8s`, a.monitor, { method: 'POST', path: '/api/config/namespaces/default/virtual_k8ss', body: { metadata: { name: 'by-monitor' }, spec: {} } }, denied, true);
  add('configuration', 'delete', 'cross', `${A}'s monitor token deleting its own virtual_k8s`, a.monitor, { method: 'DELETE', path: `/api/config/namespaces/default/virtual_k8ss/${a.vk8s}` }, denied);
  add('configuration', 'list', 'cross', `${A}'s kubeconfig on the configuration API`, a.kubeconfig, { method: 'GET', path: '/api/config/namespaces/default/virtual_k8ss' }, denied, true);
  add('configuration', 'list', 'cross', `${A}'s site agent certificate on the configuration API`, a.agent, { method: 'GET', path: '/api/config/namespaces/default/virtual_k8ss' }, denied);
  add('configuration', 'list', 'cross', `${A}'s site registration token on the configuration API`, { token: 'bearer' in a.siteToken ? a.siteToken.bearer : '' }, { method: 'GET', path: '/api/config/namespaces/default/virtual_k8ss' }, denied);
  add('configuration', 'get', 'own', `${A}'s admin token on its own virtual_k8s`, a.admin, { method: 'GET', path: `/api/config/namespaces/default/virtual_k8ss/${a.vk8s}` }, allowed, true);
  add('configuration', 'get', 'own', `${A}'s monitor token on its own virtual_k8s`, a.monitor, { method: 'GET', path: `/api/config/namespaces/default/virtual_k8ss/${a.vk8s}` }, allowed);

  // The vK8s API: another tenant's cluster by API token (not found) and by kubeconfig (another cluster).
  for (const [who, caller] of [
    [`${A}'s admin token`, a.admin],
    [`${A}'s kubeconfig`, a.kubeconfig],
  ] as const) {
    const on = `on ${B}'s virtual cluster`;
    add('vK8s', 'get', 'cross', `${who} ${on}`, caller, { method: 'GET', path: `${configMaps(b)}/${b.configMap}` }, denied, true);
    add('vK8s', 'list', 'cross', `${who} ${on}`, caller, { method: 'GET', path: configMaps(b) }, denied);
    add('vK8s', 'watch', 'cross', `${who} ${on}`, caller, { method: 'GET', path: `${configMaps(b)}?watch=1&timeoutSeconds=1` }, denied);
    add('vK8s', 'create', 'cross', `${who} ${on}`, caller, { method: 'POST', path: configMaps(b), body: configMap(`from-${A}`) }, denied);
    add('vK8s', 'patch', 'cross', `${who} ${on}`, caller, { method: 'PATCH', path: `${configMaps(b)}/${b.configMap}`, ...mergePatch({ data: { owner: A } }) }, denied);
    add('vK8s', 'delete', 'cross', `${who} ${on}`, caller, { method: 'DELETE', path: `${configMaps(b)}/${b.configMap}` }, denied);
    if (b.pod !== undefined) {
      add('vK8s', 'logs', 'cross', `${who} ${on}`, caller, { method: 'GET', path: `${vk(b)}/api/v1/namespaces/default/pods/${b.pod.name}/log` }, denied);
      add('vK8s', 'exec', 'cross', `${who} ${on}`, caller, { method: 'POST', path: `${vk(b)}/api/v1/namespaces/default/pods/${b.pod.name}/exec?command=ls&stdout=1` }, denied);
    }
  }
  add('vK8s', 'create', 'cross', `${A}'s monitor token on its own virtual cluster`, a.monitor, { method: 'POST', path: configMaps(a), body: configMap('by-monitor') }, denied);
  add('vK8s', 'delete', 'cross', `${A}'s monitor token on its own virtual cluster`, a.monitor, { method: 'DELETE', path: `${configMaps(a)}/${a.configMap}` }, denied);
  add('vK8s', 'list', 'cross', `${A}'s site agent certificate on its own virtual cluster`, a.agent, { method: 'GET', path: configMaps(a) }, denied);
  add('vK8s', 'list', 'cross', `${A}'s site registration token on its own virtual cluster`, a.siteToken, { method: 'GET', path: configMaps(a) }, denied);
  if (a.pod !== undefined) add('vK8s', 'list', 'cross', `${A}'s pod bootstrap token on its own virtual cluster`, a.pod.bootstrap, { method: 'GET', path: configMaps(a) }, denied);
  const own = `${A}'s kubeconfig on its own virtual cluster`;
  add('vK8s', 'get', 'own', own, a.kubeconfig, { method: 'GET', path: `${configMaps(a)}/${a.configMap}` }, allowed, true);
  add('vK8s', 'list', 'own', own, a.kubeconfig, { method: 'GET', path: configMaps(a) }, allowed);
  add('vK8s', 'watch', 'own', own, a.kubeconfig, { method: 'GET', path: `${configMaps(a)}?watch=1&timeoutSeconds=1` }, allowed);
  add('vK8s', 'create', 'own', own, a.kubeconfig, { method: 'POST', path: configMaps(a), body: configMap(`own-${A}`) }, allowed);
  add('vK8s', 'patch', 'own', own, a.kubeconfig, { method: 'PATCH', path: `${configMaps(a)}/own-${A}`, ...mergePatch({ data: { k: 'w' } }) }, allowed);
  add('vK8s', 'delete', 'own', own, a.kubeconfig, { method: 'DELETE', path: `${configMaps(a)}/own-${A}` }, allowed);
  add('vK8s', 'get', 'own', `${A}'s monitor token on its own virtual cluster`, a.monitor, { method: 'GET', path: `${configMaps(a)}/${a.configMap}` }, allowed);
  if (a.pod !== undefined) add('vK8s', 'logs', 'own', own, a.kubeconfig, { method: 'GET', path: `${vk(a)}/api/v1/namespaces/default/pods/${a.pod.name}/log` }, reachedStreams);

  // The identity API: pod bootstrap tokens for another tenant's pods, by the wrong credentials.
  const tokenFor = (t: TenantCredentials): Call => ({ method: 'POST', path: '/api/identity/v1/tokens', body: { namespace: 'default', vk8s: t.vk8s, pod: t.pod?.name ?? `pod-of-${t.tenant}`, ttl_seconds: 60 } });
  add('identity', 'create', 'cross', `${A}'s admin token minting a bootstrap token for ${B}'s pod`, a.admin, tokenFor(b), denied, true);
  add('identity', 'create', 'cross', `${A}'s kubeconfig minting a bootstrap token for ${B}'s pod`, a.kubeconfig, tokenFor(b), denied);
  add('identity', 'create', 'cross', `${A}'s kubeconfig on the identity API`, a.kubeconfig, tokenFor(a), denied);
  add('identity', 'create', 'cross', `${A}'s monitor token minting a bootstrap token`, a.monitor, tokenFor(a), denied, true);
  add('identity', 'create', 'cross', `${A}'s site agent certificate on the admin token endpoint`, a.agent, tokenFor(a), denied);
  if (a.pod !== undefined) {
    add('identity', 'create', 'cross', `${A}'s pod bootstrap token on the admin token endpoint`, a.pod.bootstrap, tokenFor(a), denied);
    add('identity', 'create', 'own', `${A}'s admin token minting a bootstrap token for its own pod`, a.admin, tokenFor(a), allowed);
  }

  // The secret API: per tenant by credential; monitors do not rotate keys, kubeconfigs and site credentials have no business there.
  add('secret', 'update', 'cross', `${A}'s monitor token rotating the blindfold key`, a.monitor, { method: 'POST', path: '/api/secret_management/rotate_key', body: {} }, denied, true);
  add('secret', 'get', 'cross', `${A}'s kubeconfig on the secret API`, a.kubeconfig, { method: 'GET', path: '/api/secret_management/get_public_key' }, denied, true);
  add('secret', 'get', 'cross', `${A}'s site agent certificate on the secret API`, a.agent, { method: 'GET', path: '/api/secret_management/get_public_key' }, denied);
  add('secret', 'get', 'cross', `${A}'s site registration token on the secret API`, a.siteToken, { method: 'GET', path: '/api/secret_management/get_public_key' }, denied);
  add('secret', 'get', 'own', `${A}'s monitor token reading its public key`, a.monitor, { method: 'GET', path: '/api/secret_management/get_public_key' }, allowed, true);

  // The site API: registration tokens by monitors and kubeconfigs, an agent writing another tenant's pods or taking its site.
  add('site', 'create', 'cross', `${A}'s monitor token minting a site registration token`, a.monitor, { method: 'POST', path: '/api/sites/v1/tokens', body: { type: 'CUSTOMER_EDGE' } }, denied, true);
  add('site', 'create', 'cross', `${A}'s kubeconfig minting a site registration token`, a.kubeconfig, { method: 'POST', path: '/api/sites/v1/tokens', body: { type: 'CUSTOMER_EDGE' } }, denied);
  add('site', 'create', 'cross', `${A}'s admin token minting a regional-edge (platform) registration token`, a.admin, { method: 'POST', path: '/api/sites/v1/tokens', body: { type: 'REGIONAL_EDGE' } }, denied);
  // (An agent's heartbeat naming another agent's site is answered 200 and ignores that site, as documented; not observable here.)
  add('site', 'update', 'cross', `${A}'s admin token heartbeating ${B}'s site`, a.admin, { method: 'POST', path: '/api/sites/v1/heartbeat', body: { sites: [b.site] } }, denied);
  add('site', 'list', 'cross', `${A}'s agent listing the ConfigMaps placed on its sites (${B}'s is placed on ${B}'s site)`, a.agent, { method: 'GET', path: '/api/sites/v1/objects?kind=configmaps' }, hides(b.configMap), true);
  add('site', 'list', 'own', `${A}'s agent listing the ConfigMaps placed on its site`, a.agent, { method: 'GET', path: '/api/sites/v1/objects?kind=configmaps' }, shows(a.configMap));
  if (b.pod !== undefined) {
    add('site', 'update', 'cross', `${A}'s agent writing the status of ${B}'s pod`, a.agent, { method: 'POST', path: '/api/sites/v1/pods/status', body: { items: [{ cluster: { tenant: b.tenantName, namespace: 'default', name: b.vk8s }, name: b.pod.name, uid: b.pod.uid, status: { phase: 'Failed' } }] } }, refusedItem);
    add('site', 'delete', 'cross', `${A}'s agent reporting ${B}'s pod terminated`, a.agent, { method: 'POST', path: '/api/sites/v1/pods/terminated', body: { items: [{ cluster: { tenant: b.tenantName, namespace: 'default', name: b.vk8s }, name: b.pod.name, uid: b.pod.uid }] } }, refusedItem);
  }
  add('site', 'create', 'own', `${A}'s admin token minting a site registration token`, a.admin, { method: 'POST', path: '/api/sites/v1/tokens', body: { type: 'CUSTOMER_EDGE' } }, allowed, true);
  add('site', 'update', 'own', `${A}'s agent heartbeating its own site`, a.agent, { method: 'POST', path: '/api/sites/v1/heartbeat', body: { sites: [a.site] } }, allowed);

  // The web API (credentials, tenants).
  const credentials = '/api/web/namespaces/system/api_credentials';
  add('web', 'get', 'cross', `${A}'s admin token reading ${B}'s kubeconfig credential`, a.admin, { method: 'GET', path: `${credentials}/${b.credentialName}` }, denied, true);
  add('web', 'delete', 'cross', `${A}'s admin token revoking ${B}'s kubeconfig credential`, a.admin, { method: 'POST', path: '/api/web/namespaces/system/revoke/api_credentials', body: { name: b.credentialName } }, denied);
  add('web', 'list', 'cross', `${A}'s admin token listing credentials`, a.admin, { method: 'GET', path: credentials }, hides(b.credentialName));
  add('web', 'create', 'cross', `${A}'s admin token creating a tenant`, a.admin, { method: 'POST', path: '/api/web/tenants', body: { name: `evil-${A}` } }, denied);
  add('web', 'list', 'cross', `${A}'s monitor token listing credentials`, a.monitor, { method: 'GET', path: credentials }, denied);
  add('web', 'create', 'cross', `${A}'s monitor token minting an admin token`, a.monitor, { method: 'POST', path: credentials, body: { name: 'escalate', spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: '*', role: 'admin' }] } } }, denied, true);
  add('web', 'create', 'cross', `${A}'s kubeconfig minting an API token`, a.kubeconfig, { method: 'POST', path: credentials, body: { name: 'escape', spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: '*', role: 'admin' }] } } }, denied);
  add('web', 'list', 'own', `${A}'s admin token listing its credentials`, a.admin, { method: 'GET', path: credentials }, allowed, true);
  return cells;
}

/** After every attack: what the victim still has (controls of the victim, must be allowed). */
export function survivorCells(b: TenantCredentials): Cell[] {
  const B = b.tenant;
  return [
    { api: 'configuration', verb: 'get', boundary: 'own', what: `${B}'s virtual_k8s is still there`, caller: b.admin, call: { method: 'GET', path: `/api/config/namespaces/default/virtual_k8ss/${b.vk8s}` }, ...allowed, short: true },
    {
      api: 'vK8s',
      verb: 'get',
      boundary: 'own',
      what: `${B}'s ConfigMap is still there, unpatched`,
      caller: b.kubeconfig,
      call: { method: 'GET', path: `${configMaps(b)}/${b.configMap}` },
      expected: `200 with owner ${B}`,
      judge: (answer) => (answer.status === 200 && (JSON.parse(answer.body) as { data?: { owner?: string } }).data?.owner === B ? undefined : `answered ${answer.status}: ${answer.body.slice(0, 200)}`),
      short: true,
    },
    { api: 'web', verb: 'get', boundary: 'own', what: `${B}'s kubeconfig credential is still active`, caller: b.admin, call: { method: 'GET', path: `/api/web/namespaces/system/api_credentials/${b.credentialName}` }, expected: '200, active', judge: (r) => (r.status === 200 && (JSON.parse(r.body) as { active?: boolean }).active === true ? undefined : `answered ${r.status}: ${r.body.slice(0, 200)}`), short: true },
  ];
}
