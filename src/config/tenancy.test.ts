import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startConfigHarness, type ConfigHarness } from '../server/testing/config-harness.js';

const CREDS = '/api/web/namespaces/system/api_credentials';
const policer = (name: string): unknown => ({ metadata: { name }, spec: { committed_information_rate: 5, burst_size: 5 } });

describe('tenants, credentials and roles', () => {
  let h: ConfigHarness;
  let globex: string;
  before(async () => {
    h = await startConfigHarness();
    const res = await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'globex' } });
    assert.equal(res.status, 200, res.body);
    globex = res.json<{ admin_token: string }>().admin_token;
    assert.equal((await h.call('POST', '/api/config/namespaces/default/policers', { body: policer('acme-secret-policer') })).status, 200);
  });
  after(() => h?.close());

  it('first start made default, shared and system and wrote the admin token with mode 0600', async () => {
    assert.equal(statSync(join(h.home, 'api-token')).mode & 0o777, 0o600);
    const names = (await h.call('GET', '/api/web/namespaces')).json<{ items: Array<{ name: string }> }>().items.map((i) => i.name);
    assert.deepEqual(names, ['default', 'shared', 'system']);
    const ns = await h.call('GET', '/api/web/namespaces/system?response_format=4');
    assert.equal(ns.json<{ metadata: { namespace: string } }>().metadata.namespace, '');
  });

  it('a tenant never sees another tenant\'s objects: 404, not 403, and empty lists', async () => {
    const get = await h.call('GET', '/api/config/namespaces/default/policers/acme-secret-policer', { token: globex });
    assert.equal(get.status, 404);
    assert.equal(get.json()['message'], 'policer acme-secret-policer does not exist in namespace default');
    const list = await h.call('GET', '/api/config/namespaces/default/policers', { token: globex });
    assert.deepEqual(list.json()['items'], []);
    const del = await h.call('DELETE', '/api/config/namespaces/default/policers/acme-secret-policer', { token: globex });
    assert.equal(del.status, 404);
    assert.equal((await h.call('GET', '/api/config/namespaces/default/policers/acme-secret-policer')).status, 200, 'still there for acme');
    const creds = (await h.call('GET', CREDS, { token: globex })).json<{ items: Array<{ user: string }> }>().items;
    assert.ok(creds.every((c) => c.user.endsWith('@globex')));
  });

  it('platform namespaces are readable by every tenant and writable only by the platform', async () => {
    assert.equal((await h.call('GET', '/api/config/namespaces/svc-io-shared/workload_flavors/medium', { token: globex })).status, 200);
    const write = await h.call('POST', '/api/config/namespaces/svc-io-shared/policers', { token: globex, body: policer('mine') });
    assert.equal(write.status, 403);
    assert.equal(write.json()['code'], 7);
    assert.equal((await h.call('POST', '/api/config/namespaces/svc-io-shared/policers', { token: h.platformToken, body: policer('platform-policer') })).status, 200);
    assert.equal((await h.call('POST', '/api/web/tenants', { body: { name: 'initech' } })).status, 403, 'tenants cannot create tenants');
    assert.equal((await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'svc-io-evil' } })).status, 400);
  });

  it('roles: monitor reads, editor writes, admin manages; a credential never exceeds its issuer', async () => {
    const issue = async (token: string, name: string, roles: Array<{ namespace: string; role: string }>): Promise<{ status: number; data: string; body: string }> => {
      const res = await h.call('POST', CREDS, { token, body: { name, namespace: 'system', expiration_days: 7, spec: { type: 'API_TOKEN', namespace_roles: roles } } });
      return { status: res.status, data: res.status === 200 ? res.json<{ data: string }>().data : '', body: res.body };
    };
    const monitor = (await issue(h.adminToken, 'mon', [{ namespace: 'default', role: 'monitor' }])).data;
    const editor = (await issue(h.adminToken, 'ed', [{ namespace: 'default', role: 'editor' }])).data;
    assert.equal((await h.call('GET', '/api/config/namespaces/default/policers', { token: monitor })).status, 200);
    assert.equal((await h.call('GET', '/api/config/namespaces/shared/policers', { token: monitor })).status, 200, 'shared is readable from any namespace');
    assert.equal((await h.call('GET', '/api/config/namespaces/system/policers', { token: monitor })).status, 403);
    const denied = await h.call('POST', '/api/config/namespaces/default/policers', { token: monitor, body: policer('by-monitor') });
    assert.deepEqual([denied.status, denied.json()['code']], [403, 7]);
    assert.equal((await h.call('POST', '/api/config/namespaces/default/policers', { token: editor, body: policer('by-editor') })).status, 200);
    assert.equal((await h.call('POST', '/api/web/namespaces', { token: editor, body: { metadata: { name: 'ed-ns' } } })).status, 403);
    assert.equal((await h.call('GET', CREDS, { token: editor })).status, 403);
    const escalation = await issue(h.adminToken, 'esc', [{ namespace: 'default', role: 'owner' }]);
    assert.equal(escalation.status, 400);
    const scopedAdmin = (await issue(h.adminToken, 'sysadm', [{ namespace: 'system', role: 'admin' }])).data;
    const beyond = await issue(scopedAdmin, 'beyond', [{ namespace: 'default', role: 'editor' }]);
    assert.equal(beyond.status, 403, beyond.body);
    assert.match(beyond.body, /cannot grant role editor in namespace default/);
  });

  it('API tokens: issued once, stored only as a hash, listed without the secret, revoked at once', async () => {
    const res = await h.call('POST', CREDS, { body: { name: 'ci-bot', namespace: 'system', expiration_days: 30, spec: { type: 'API_TOKEN' } } });
    assert.equal(res.status, 200, res.body);
    const issued = res.json<{ name: string; data: string; active: boolean; expiration_timestamp: string }>();
    assert.deepEqual(Object.keys(issued).sort(), ['active', 'data', 'expiration_timestamp', 'name']);
    assert.equal(issued.active, true);
    const days = (Date.parse(issued.expiration_timestamp) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, String(days));
    assert.equal((await h.call('GET', '/api/config/namespaces/default/policers', { token: issued.data })).status, 200);
    const stored = await h.controlPlane.store.list('/auth/');
    assert.ok(stored.items.every((kv) => !kv.value.includes(issued.data) && !kv.key.includes(issued.data)), 'the token itself is stored somewhere');
    const listed = (await h.call('GET', CREDS)).json<{ items: Array<Record<string, unknown>> }>().items.find((i) => i['name'] === 'ci-bot');
    assert.ok(listed !== undefined && !JSON.stringify(listed).includes(issued.data));
    assert.equal((await h.call('POST', '/api/web/namespaces/system/revoke/api_credentials', { body: { name: 'ci-bot', namespace: 'system' } })).status, 200);
    const after = await h.call('GET', '/api/config/namespaces/default/policers', { token: issued.data });
    assert.equal(after.status, 401);
    assert.match(String(after.json()['message']), /ci-bot has been revoked/);
    for (const days of [0, 91, 1.5]) {
      const bad = await h.call('POST', CREDS, { body: { name: `bad-${String(days).replace('.', '-')}`, expiration_days: days, spec: { type: 'API_TOKEN' } } });
      assert.equal(bad.status, 400, String(days));
    }
    assert.equal((await h.call('POST', CREDS, { body: { name: 'ci-bot', expiration_days: 1, spec: { type: 'API_TOKEN' } } })).status, 409);
  });

  it('API certificates authenticate by mutual TLS, and stop working once revoked', async () => {
    const res = await h.call('POST', CREDS, { body: { name: 'cert-bot', expiration_days: 5, spec: { type: 'API_CERTIFICATE', namespace_roles: [{ namespace: 'default', role: 'monitor' }] } } });
    assert.equal(res.status, 200, res.body);
    const pem = Buffer.from(res.json<{ data: string }>().data, 'base64').toString('utf8');
    const key = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/.exec(pem)?.[0] ?? '';
    const cert = pem.replace(key, '');
    const viaCert = await h.call('GET', '/api/config/namespaces/default/policers', { token: null, cert, key });
    assert.equal(viaCert.status, 200, viaCert.body);
    assert.equal((await h.call('POST', '/api/config/namespaces/default/policers', { token: null, cert, key, body: policer('by-cert') })).status, 403);
    await h.call('POST', '/api/web/namespaces/system/revoke/api_credentials', { body: { name: 'cert-bot' } });
    assert.equal((await h.call('GET', '/api/config/namespaces/default/policers', { token: null, cert, key })).status, 401);
  });

  it('KUBE_CONFIG credentials carry the CA, a client certificate and the vK8s server URL', async () => {
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const second = await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk2' }, spec: {} } });
    assert.equal(second.status, 409, 'one virtual_k8s per namespace');
    const res = await h.call('POST', CREDS, { body: { name: 'kube', expiration_days: 10, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } } });
    assert.equal(res.status, 200, res.body);
    const config = parse(Buffer.from(res.json<{ data: string }>().data, 'base64').toString('utf8')) as {
      clusters: Array<{ name: string; cluster: { server: string; 'certificate-authority-data': string } }>;
      'current-context': string;
      users: Array<{ user: Record<string, string> }>;
    };
    assert.equal(config['current-context'], 'default_vk1');
    assert.equal(config.clusters[0]?.cluster.server, `${h.url}/api/vk8s/namespaces/default/vk1`);
    assert.equal(Buffer.from(config.clusters[0]?.cluster['certificate-authority-data'] ?? '', 'base64').toString(), h.ca);
    assert.ok(config.users[0]?.user['client-certificate-data'] !== undefined && config.users[0]?.user['client-key-data'] !== undefined);
    const missing = await h.call('POST', CREDS, { body: { name: 'kube2', expiration_days: 10, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'nope', virtual_k8s_namespace: 'default' } } });
    assert.equal(missing.status, 404);
  });

  it('namespaces: create, replace, cascade_delete with everything in them; reserved names refused', async () => {
    assert.equal((await h.call('POST', '/api/web/namespaces', { body: { metadata: { name: 'team-z' }, spec: {} } })).status, 200);
    await h.call('POST', '/api/config/namespaces/team-z/policers', { body: policer('z1') });
    await h.call('POST', '/api/config/namespaces/team-z/workload_flavors', { body: { metadata: { name: 'zf' }, spec: { vcpus: 1, memory: 10 } } });
    assert.equal((await h.call('PUT', '/api/web/namespaces/team-z', { body: { metadata: { name: 'team-z', description: 'team z' }, spec: {} } })).status, 200);
    assert.equal((await h.call('POST', '/api/web/namespaces/team-z/cascade_delete')).status, 200);
    assert.equal((await h.call('GET', '/api/web/namespaces/team-z')).status, 404);
    assert.deepEqual((await h.controlPlane.store.list('/config/acme/policer/team-z/')).items, []);
    assert.deepEqual((await h.controlPlane.store.list('/config/acme/workload_flavor/team-z/')).items, []);
    assert.equal((await h.call('POST', '/api/web/namespaces/system/cascade_delete')).status, 400);
    assert.equal((await h.call('POST', '/api/web/namespaces', { body: { metadata: { name: 'svc-io-mine' } } })).status, 400);
    assert.equal((await h.call('POST', '/api/web/namespaces', { body: { metadata: { name: 'nsx', namespace: 'default' } } })).status, 400);
  });
});
