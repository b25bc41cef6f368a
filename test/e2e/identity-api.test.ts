import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import type { HttpsResponse } from '../../src/client/https-client.js';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import type { BootstrapToken, IdentityBundle } from '../../src/site-api/identity-bundle.js';
import { readWorkloadIdentity } from '../../src/identity/identity-extension.js';
import { opensslVerify } from '../../src/identity/testing/openssl.js';
import { makeTestCsr, type TestCsr } from '../../src/identity/testing/test-csr.js';
import { SiteApiClient } from '../../src/site-agent/site-api-client.js';
import { caPin } from '../../src/site-api/registration-token.js';
import { registerTestSites, type TestAgent } from '../../src/site-plane/testing/register-test-sites.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { EDGEPLANE_BIN } from './support/server-process.js';
import type { Pod } from './support/multisite-objects.js';
import { waitFor } from './support/wait-for.js';

const VK8S = '/api/vk8s/namespaces/default/vk1';
const IDENTITY = '/api/identity/v1';
const STATUS_KEYS = ['apiVersion', 'code', 'kind', 'message', 'metadata', 'reason', 'status'];

/** A pod's CSR pair, keeping the keys (a sidecar would). */
interface PodKeys {
  readonly server: TestCsr;
  readonly client: TestCsr;
  readonly body: { serverCsr: string; clientCsr: string };
}
const podKeys = (): PodKeys => {
  const server = makeTestCsr();
  const client = makeTestCsr();
  return { server, client, body: { serverCsr: server.pem, clientCsr: client.pem } };
};

/**
 * The identity API end to end over HTTPS against the real control plane: a Deployment in a
 * vK8s whose pods the scheduler binds to a regional-edge site registered through the site
 * API; tokens from an admin (API and CLI, audited) and from the site agent; issuance,
 * renewal over mutual TLS, and the failures of every route as Kubernetes Status.
 */
describe('identity API over HTTPS', () => {
  let h: ConfigHarness;
  let agentA: TestAgent;
  let agentB: TestAgent;
  let globexToken: string;
  let pods: Pod[];

  const expectStatus = (res: HttpsResponse, code: number, reason: string, message: RegExp): void => {
    assert.equal(res.status, code, res.body);
    const status = res.json();
    assert.deepEqual(Object.keys(status).sort(), STATUS_KEYS, res.body);
    assert.deepEqual([status['kind'], status['status'], status['reason'], status['code']], ['Status', 'Failure', reason, code]);
    assert.match(String(status['message']), message);
  };
  const ok = async <T>(res: Promise<HttpsResponse>): Promise<T> => {
    const answer = await res;
    assert.ok(answer.status === 200 || answer.status === 201, `HTTP ${answer.status}: ${answer.body}`);
    return answer.json<T>();
  };
  const adminToken = (pod: string, token?: string): Promise<HttpsResponse> => h.call('POST', `${IDENTITY}/tokens`, { body: { namespace: 'default', vk8s: 'vk1', pod }, ...(token === undefined ? {} : { token }) });
  const issue = (token: string, body: unknown): Promise<HttpsResponse> => h.call('POST', `${IDENTITY}/certificates`, { token: null, headers: { authorization: `Bearer ${token}` }, body });
  const renew = (keys: { cert: string; key: string } | undefined, body: unknown): Promise<HttpsResponse> => h.call('POST', `${IDENTITY}/certificates/renew`, { token: null, body, ...(keys ?? {}) });
  const events = async (pod: string): Promise<KubeObject[]> =>
    (await ok<{ items: KubeObject[] }>(h.call('GET', `${VK8S}/api/v1/namespaces/default/events?fieldSelector=${encodeURIComponent(`involvedObject.name=${pod},reason=IdentityTokenIssued`)}`))).items;

  before(async () => {
    h = await startConfigHarness();
    const post = (path: string, body: unknown, token?: string): Promise<unknown> => ok(h.call('POST', path, { body, ...(token === undefined ? {} : { token }) }));
    await post('/api/config/namespaces/default/virtual_sites', { metadata: { name: 'eu' }, spec: { site_type: 'REGIONAL_EDGE', site_selector: { expressions: ['svc.io/region=eu'] } } });
    await post('/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: { vsite_refs: [{ namespace: 'default', name: 'eu' }] } });
    const call = (method: string, path: string, options?: Parameters<ConfigHarness['call']>[2]): Promise<HttpsResponse> => h.call(method, path, options);
    const tokens = { tenant: h.adminToken, platform: h.platformToken };
    agentA = await registerTestSites(call, tokens, 'agent-a', [{ name: 're-a', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' } }]);
    agentB = await registerTestSites(call, tokens, 'agent-b', [{ name: 're-b', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'us' } }]);
    globexToken = (await ok<{ admin_token: string }>(h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'globex' } }))).admin_token;

    await post(`${VK8S}/api/v1/namespaces/default/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'shop' } });
    await post(`${VK8S}/api/v1/namespaces/default/services`, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } });
    await post(`${VK8S}/apis/apps/v1/namespaces/default/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { serviceAccountName: 'shop', containers: [{ name: 'nginx', image: 'nginx:1.17' }] } } },
    });
    pods = await waitFor('both pods of the Deployment bound to re-a', async () => {
      const list = await ok<{ items: Pod[] }>(h.call('GET', `${VK8S}/api/v1/namespaces/default/pods?labelSelector=app%3Dweb`));
      return list.items.length === 2 && list.items.every((p) => p.spec.nodeName !== undefined) ? list.items : undefined;
    });
  });
  after(async () => {
    await h?.close();
  });

  it('an admin mints a token for a bound pod; it is recorded as an Event naming the user, credential and expiry, never the token', async () => {
    const pod = pods[0] as Pod;
    const minted = await ok<BootstrapToken>(adminToken(pod.metadata.name ?? ''));
    assert.deepEqual({ pod: minted.pod, site: minted.site }, { pod: { name: pod.metadata.name, uid: pod.metadata.uid }, site: 're-a' });
    const claims = decodeJwt(minted.token);
    assert.equal(claims['ca_pin'], caPin(h.ca));
    assert.equal(claims.sub, `system:pod:default:vk1:${pod.metadata.name ?? ''}`);
    assert.equal(new Date((claims.exp ?? 0) * 1000).toISOString().replace('.000Z', 'Z'), minted.expiresAt);
    const recorded = await waitFor('the audit Event', async () => ((await events(pod.metadata.name ?? '')).length === 1 ? events(pod.metadata.name ?? '') : undefined));
    const event = recorded[0] as KubeObject & { type: string; message: string; involvedObject: { uid: string }; source: { component: string } };
    assert.equal(event.type, 'Normal');
    assert.equal(event.involvedObject.uid, pod.metadata.uid);
    assert.equal(event.source.component, 'edgeplane-identity');
    assert.match(event.message, new RegExp(`^bootstrap token for pod ${pod.metadata.name ?? ''} issued to user admin@acme \\(credential [^)]+\\); it expires at ${minted.expiresAt}$`));
    assert.ok(!JSON.stringify(event).includes(minted.token.split('.')[2] ?? 'x'), 'the token is not in the Event');
  });

  it('edgeplane identity token prints a token for the pod and is audited too; --help describes it', async () => {
    const pod = pods[1] as Pod;
    const run = promisify(execFile);
    const args = ['identity', 'token', '--server', h.url, '--token', h.adminToken, '--ca-file', `${h.home}/pki/ca.crt`, '--namespace', 'default', '--vk8s', 'vk1', '--pod', pod.metadata.name ?? '', '--ttl-seconds', '300'];
    const { stdout } = await run(process.execPath, [EDGEPLANE_BIN, ...args]);
    const claims = decodeJwt(stdout.trim());
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 300);
    assert.deepEqual((claims['edgeplane.io'] as { pod: unknown }).pod, { name: pod.metadata.name, uid: pod.metadata.uid });
    await waitFor('the CLI\'s audit Event', async () => ((await events(pod.metadata.name ?? '')).length === 1 ? true : undefined));
    const help = await run(process.execPath, [EDGEPLANE_BIN, 'identity', 'token', '--help']);
    assert.match(help.stdout, /--namespace <namespace>[\s\S]*--vk8s <name>[\s\S]*--pod <name>[\s\S]*--ttl-seconds <seconds>/);
    const missing = await run(process.execPath, [EDGEPLANE_BIN, ...args.slice(0, 12), '--pod', 'ghost']).then(
      () => assert.fail('a missing pod must fail'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'Error from server (NotFound): pod ghost not found in virtual cluster default/vk1\n');
  });

  it('the site agent gets a token for a pod on its site (not another agent), and the token gets the pod its certificates', async () => {
    const pod = pods[0] as Pod;
    const body = { tenant: 'acme', namespace: 'default', vk8s: 'vk1', pod: pod.metadata.name, uid: pod.metadata.uid };
    const client = new SiteApiClient({ server: h.url, ca: h.ca, certificate: agentA.cert, key: agentA.key });
    let minted: BootstrapToken;
    try {
      minted = await client.podIdentityToken({ cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' });
    } finally {
      client.close();
    }
    assert.equal(minted.site, 're-a');
    expectStatus(await h.call('POST', '/api/sites/v1/pods/identity-token', { token: null, body, cert: agentB.cert, key: agentB.key }), 403, 'Forbidden', /not bound to a site of this agent/);
    expectStatus(await h.call('POST', '/api/sites/v1/pods/identity-token', { token: null, body }), 401, 'Unauthorized', /client certificate is required/);
    expectStatus(await h.call('POST', '/api/sites/v1/pods/identity-token', { token: null, body: { ...body, uid: 'gone' }, cert: agentA.cert, key: agentA.key }), 404, 'NotFound', /with uid gone no longer exists/);

    const keys = podKeys();
    const bundle = await ok<IdentityBundle>(issue(minted.token, keys.body));
    const client509 = new X509Certificate(bundle.clientCertificate);
    assert.equal(client509.subject, `L=re-a\nO=acme\nOU=default\nCN=${pod.metadata.name ?? ''}`);
    assert.ok(client509.checkPrivateKey(keys.client.privateKey), 'the client certificate is for the client CSR\'s key');
    assert.ok(new X509Certificate(bundle.serverCertificate).checkPrivateKey(keys.server.privateKey));
    assert.match(client509.subjectAltName ?? '', /URI:spiffe:\/\/acme\/ns\/default\/sa\/shop/);
    assert.match(client509.subjectAltName ?? '', /DNS:web\.default\.svc\.cluster\.local/);
    assert.deepEqual(readWorkloadIdentity(client509.raw), { v: 1, tenant: 'acme', namespace: 'default', vk8s: 'vk1', site: 're-a', pod: pod.metadata.name, podUid: pod.metadata.uid, serviceAccount: 'shop', labels: pod.metadata.labels });
    const verified = await opensslVerify(bundle.clientCa, bundle.clientCertificate + bundle.chain, { purpose: 'sslclient' });
    assert.equal(verified.status, 0, verified.output);
  });

  it('renewal over mutual TLS with the pod\'s client certificate; the TLS server keeps serving agents', async () => {
    const pod = pods[0] as Pod;
    const keys = podKeys();
    const first = await ok<IdentityBundle>(issue((await ok<BootstrapToken>(adminToken(pod.metadata.name ?? ''))).token, keys.body));
    const next = podKeys();
    const renewed = await ok<IdentityBundle>(renew({ cert: first.clientCertificate + first.chain, key: keys.client.privateKeyPem }, next.body));
    assert.ok(new X509Certificate(renewed.clientCertificate).checkPrivateKey(next.client.privateKey));
    assert.equal(readWorkloadIdentity(new X509Certificate(renewed.serverCertificate).raw)?.podUid, pod.metadata.uid);
    expectStatus(await renew({ cert: first.serverCertificate + first.chain, key: keys.server.privateKeyPem }, next.body), 401, 'Unauthorized', /not a client certificate/);
    expectStatus(await renew(undefined, next.body), 401, 'Unauthorized', /present client\.crt and client\.key/);
    expectStatus(await renew({ cert: agentA.cert, key: agentA.key }, next.body), 401, 'Unauthorized', /carries no Edgeplane workload identity/);
    assert.equal((await h.call('POST', '/api/sites/v1/heartbeat', { token: null, body: { sites: ['re-a'] }, cert: agentA.cert, key: agentA.key })).status, 200, 'agents still authenticate by TLS');
  });

  it('issuance fails as a Kubernetes Status: bad token, pod deleted, malformed body, oversize body, unknown path', async () => {
    const pod = pods[1] as Pod;
    const { token } = await ok<BootstrapToken>(adminToken(pod.metadata.name ?? ''));
    expectStatus(await issue(`${token.slice(0, -4)}AAAA`, podKeys().body), 401, 'Unauthorized', /signature does not verify/);
    expectStatus(await h.call('POST', `${IDENTITY}/certificates`, { token: null, body: podKeys().body }), 401, 'Unauthorized', /needs "Authorization: Bearer <bootstrap token>"/);
    expectStatus(await issue(token, { serverCsr: 'x', clientCsr: 'y' }), 400, 'BadRequest', /serverCsr: expected one PEM "CERTIFICATE REQUEST" block/);
    expectStatus(await h.call('POST', `${IDENTITY}/certificates`, { token: null, headers: { authorization: `Bearer ${token}` }, raw: '{' }), 400, 'BadRequest', /not JSON/);
    expectStatus(await h.call('POST', `${IDENTITY}/certificates`, { token: null, headers: { authorization: `Bearer ${token}` }, raw: JSON.stringify({ serverCsr: 'x'.repeat(70_000), clientCsr: 'y' }) }), 413, 'RequestEntityTooLarge', /larger than 65536 bytes/);
    expectStatus(await h.call('GET', `${IDENTITY}/nothing`), 404, 'NotFound', /could not find the requested resource/);

    const storage = h.controlPlane.virtualClusters.storeFor({ group: '', resource: 'pods' });
    assert.ok(storage !== undefined);
    await storage.delete({ cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, dryRun: false, fieldManager: 'test' }, pod.metadata.name ?? '', { gracePeriodSeconds: 0 });
    expectStatus(await issue(token, podKeys().body), 401, 'Unauthorized', new RegExp(`pod ${pod.metadata.name ?? ''} no longer exists in virtual cluster default/vk1 of tenant acme`));
  });

  it('tokens are refused without the admin role, for another tenant\'s pods, and for missing pods', async () => {
    const pod = pods[0] as Pod;
    const monitor = await ok<{ data: string }>(h.call('POST', '/api/web/namespaces/system/api_credentials', { body: { name: 'watcher', namespace: 'system', expiration_days: 1, spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: 'default', role: 'monitor' }] } } }));
    expectStatus(await adminToken(pod.metadata.name ?? '', monitor.data), 403, 'Forbidden', /needs the admin role in namespace default: user watcher@acme has role monitor/);
    expectStatus(await adminToken(pod.metadata.name ?? '', globexToken), 404, 'NotFound', /not found in virtual cluster default\/vk1/);
    expectStatus(await adminToken('ghost'), 404, 'NotFound', /pod ghost not found/);
    expectStatus(await adminToken(pod.metadata.name ?? '', 'ep1.not-a-token'), 401, 'Unauthorized', /./);
  });
});
