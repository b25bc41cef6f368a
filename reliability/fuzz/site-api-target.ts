import fc from 'fast-check';
import type { FuzzEnvironment } from './fuzz-environment.js';
import { send } from './fuzz-request.js';
import type { FuzzTarget } from './fuzz-run.js';
import { queryString } from './fuzz-query.js';
import { encode, encoding, type EncodingChoice, FRESH_NAME, mutated, oddJson, oddString } from './fuzz-values.js';

const SITE_API = '/api/sites/v1';
const cluster = { tenant: 'acme', namespace: 'default', name: 'vk1' };

type Credential = 'agent' | 'none' | 'admin' | 'platform' | 'registration' | 'garbage';

interface Case {
  readonly route: 'tokens' | 'register' | 'heartbeat' | 'objects' | 'status' | 'terminated' | 'identity-token' | 'pods' | 'ca' | 'other';
  readonly credential: Credential;
  readonly body: unknown;
  readonly enc: EncodingChoice;
  readonly method: string;
  readonly param: string;
  readonly path: string;
}

const bodies: Record<Case['route'], fc.Arbitrary<unknown>> = {
  tokens: mutated({ type: 'CUSTOMER_EDGE', ttl_seconds: 600 }),
  register: mutated({
    agent: `agent-${FRESH_NAME}`,
    csr: '$CSR',
    sites: [{ name: FRESH_NAME, type: 'CUSTOMER_EDGE', labels: { 'fuzz.io/x': 'y' }, nodes: [{ name: 'n0', cpu: '2', memory: '4Gi' }] }],
  }),
  heartbeat: mutated({ sites: ['re-fuzz'] }),
  objects: fc.constant(undefined),
  status: mutated({ items: [{ cluster, name: 'web-x', uid: '00000000-0000-0000-0000-000000000000', status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: [{ name: 'nginx', ready: true, restartCount: 0, image: 'nginx', imageID: '', state: { running: { startedAt: '2020-01-01T00:00:00Z' } } }] } }] }),
  terminated: mutated({ items: [{ cluster, name: 'web-x', uid: '00000000-0000-0000-0000-000000000000' }] }),
  'identity-token': mutated({ tenant: 'acme', namespace: 'default', vk8s: 'vk1', pod: 'web-x', uid: '00000000-0000-0000-0000-000000000000' }),
  pods: fc.constant(undefined),
  ca: fc.constant(undefined),
  other: oddJson,
};

const routeCase = (route: Case['route']): fc.Arbitrary<Case> =>
  fc.record({
    route: fc.constant(route),
    credential: fc.oneof({ weight: 8, arbitrary: fc.constant<Credential>(route === 'register' ? 'registration' : route === 'tokens' ? 'admin' : 'agent') }, fc.constantFrom<Credential>('agent', 'none', 'admin', 'platform', 'registration', 'garbage')),
    body: bodies[route],
    enc: encoding,
    method: fc.oneof({ weight: 10, arbitrary: fc.constant('') }, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH')),
    param: fc.oneof(fc.constantFrom('configmaps', 'secrets', 'serviceaccounts', 'services', 'persistentvolumeclaims', '1', '0', 'true', ''), oddString),
    path: fc.oneof(fc.constantFrom('/', '/register/x', '/pods/x', '/objects/', '/..', '/%2e%2e/config', '/sites'), oddString.map((s) => `/${encodeURIComponent(Buffer.from(s).toString())}`)),
  });

const ROUTE_METHOD: Record<Case['route'], string> = { tokens: 'POST', register: 'POST', heartbeat: 'POST', objects: 'GET', status: 'POST', terminated: 'POST', 'identity-token': 'POST', pods: 'GET', ca: 'GET', other: 'GET' };

/**
 * The site API over HTTPS (`edgeplane server`), as a site agent calls it: registration tokens,
 * registration (fresh site names, a real CSR or a mutated one), heartbeats, placed objects,
 * pod status and termination batches, pod identity tokens, the pod watch — with the agent's
 * client certificate, other credentials or none. After a refused registration its site is absent.
 */
export function siteApiTarget(env: FuzzEnvironment): FuzzTarget<Case> {
  let counter = 0;
  const routes = Object.keys(ROUTE_METHOD) as Array<Case['route']>;
  return {
    name: 'site API',
    arbitrary: fc.oneof(...routes.map((route) => ({ weight: route === 'register' || route === 'status' ? 4 : route === 'other' || route === 'ca' ? 1 : 2, arbitrary: routeCase(route) }))),
    documented5xx: () => false,
    async run(c) {
      const fresh = `fzs-${++counter}`;
      const authorization: Partial<Record<Credential, string>> = {
        admin: `APIToken ${env.adminToken}`,
        platform: `APIToken ${env.platformToken}`,
        registration: `Bearer ${env.registrationToken}`,
        garbage: 'Bearer ept1.eyJpZCI6IngifQ',
      };
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(authorization[c.credential] === undefined ? {} : { authorization: authorization[c.credential] as string }) };
      const endpoint = c.credential === 'agent' ? env.agentApi : env.api;
      const method = c.method === '' ? ROUTE_METHOD[c.route] : c.method;
      const path = {
        tokens: '/tokens',
        register: '/register',
        heartbeat: '/heartbeat',
        objects: `/objects${queryString({ kind: c.param })}`,
        status: '/pods/status',
        terminated: '/pods/terminated',
        'identity-token': '/pods/identity-token',
        pods: `/pods${queryString({ watch: '1', resourceVersion: c.param, timeoutSeconds: '1' })}`,
        ca: '/ca',
        other: c.path,
      }[c.route];
      const body = c.body === undefined || method === 'GET' ? undefined : encode(c.body, c.enc).replaceAll(FRESH_NAME, fresh).replaceAll('$CSR', env.csr.replaceAll('\n', '\\n'));
      const answer = await send(endpoint, { method, path: `${SITE_API}${path}`, headers, ...(body === undefined ? {} : { body }), stream: c.route === 'pods' });
      if (c.route !== 'register' || answer.status < 400) return { answer };
      const site = await env.call('GET', `/api/config/namespaces/system/sites/${fresh}`);
      return { answer, ...(site.status === 404 ? {} : { problem: `registration answered ${answer.status}, yet site ${fresh} answers ${site.status}` }) };
    },
  };
}
