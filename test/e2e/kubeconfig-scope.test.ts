import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clusterWithKubeconfig, edgeplane } from './support/cluster-credentials.js';
import { httpsRequest, startServer, type ServerProcess } from './support/server-process.js';

/**
 * A kubeconfig's credential is issued for one virtual cluster: whatever roles its issuer held,
 * every platform API refuses it with 403 and stores nothing, and the virtual cluster API
 * accepts it for its own cluster only (issue 20, defect 1).
 */
describe('a kubeconfig credential works only on its own virtual cluster', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-kubeconfig-scope-'));
  const home = join(root, 'home');
  let server: ServerProcess;
  let ca: string;
  let cert: string;
  let key: string;
  let token: string;

  const withCertificate = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${server.url}${path}`, ca, { method, cert, key, ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }) });
  const withToken = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${server.url}${path}`, ca, { method, headers: { authorization: `APIToken ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

  before(async () => {
    server = await startServer(home);
    token = readFileSync(join(home, 'api-token'), 'utf8').trim();
    edgeplane(home, ['config', 'create', 'virtual_k8s', '-n', 'shared', '-f', '-'], JSON.stringify({ metadata: { name: 'vk2' }, spec: {} }));
    // Issued by the tenant's admin token, whose roles are admin in every namespace.
    ({ ca, cert, key } = clusterWithKubeconfig(home, root, 'default', 'vk1'));
  });
  after(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const DENIED: Array<{ api: string; method: string; path: string; body?: unknown }> = [
    { api: 'configuration: create an object', method: 'POST', path: '/api/config/namespaces/default/dns_domains', body: { metadata: { name: 'example.com', namespace: 'default' }, spec: { vendor_managed: null } } },
    { api: 'configuration: list objects', method: 'GET', path: '/api/config/namespaces/default/virtual_k8ss' },
    { api: "configuration: delete another namespace's virtual_k8s", method: 'DELETE', path: '/api/config/namespaces/shared/virtual_k8ss/vk2' },
    { api: 'web: mint a tenant-wide API token', method: 'POST', path: '/api/web/namespaces/system/api_credentials', body: { name: 'escape', spec: { type: 'API_TOKEN', expiration_days: 1, namespace_roles: [{ namespace: '*', role: 'admin' }] } } },
    { api: 'web: create a tenant', method: 'POST', path: '/api/web/tenants', body: { name: 'evil' } },
    { api: 'secret: the public key', method: 'GET', path: '/api/secret_management/get_public_key' },
    { api: 'identity: mint a pod bootstrap token', method: 'POST', path: '/api/identity/v1/tokens', body: { namespace: 'default', vk8s: 'vk1', pod: 'web-1', ttl_seconds: 60 } },
    { api: 'site: mint a site registration token', method: 'POST', path: '/api/sites/v1/tokens', body: { type: 'CUSTOMER_EDGE' } },
  ];

  for (const cell of DENIED) {
    it(`refuses it on ${cell.api} with 403`, async () => {
      const response = await withCertificate(cell.method, cell.path, cell.body);
      assert.equal(response.status, 403, response.body);
      assert.match(response.body, /kubeconfig for virtual cluster default\/vk1/);
    });
  }

  it('stored nothing from the refused requests', async () => {
    const domains = await withToken('GET', '/api/config/namespaces/default/dns_domains');
    assert.equal(domains.status, 200, domains.body);
    assert.deepEqual(domains.json<{ items: unknown[] }>().items, []);
    const vk2 = await withToken('GET', '/api/config/namespaces/shared/virtual_k8ss/vk2');
    assert.equal(vk2.status, 200, vk2.body);
    const credentials = await withToken('GET', '/api/web/namespaces/system/api_credentials');
    assert.equal(credentials.status, 200, credentials.body);
    const names = credentials.json<{ items: Array<{ name: string }> }>().items.map((c) => c.name);
    assert.ok(!names.includes('escape'), names.join(', '));
  });

  it('accepts it on its own virtual cluster and refuses it on another', async () => {
    const own = await withCertificate('GET', '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/configmaps');
    assert.equal(own.status, 200, own.body);
    const other = await withCertificate('GET', '/api/vk8s/namespaces/shared/vk2/api/v1/namespaces/shared/configmaps');
    assert.equal(other.status, 403, other.body);
  });

  it('leaves API tokens working on the platform APIs', async () => {
    const response = await withToken('GET', '/api/secret_management/get_public_key');
    assert.equal(response.status, 200, response.body);
  });
});
