import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';

const BASE = '/api/vk8s/namespaces/default/vk1';
const DEPLOYMENTS = `${BASE}/apis/apps/v1/namespaces/default/deployments`;
const SERVICES = `${BASE}/api/v1/namespaces/default/services`;

const deployment = (name: string, annotations: Record<string, string>): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, annotations },
  spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
});
const service = (name: string, annotations: Record<string, string>): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, annotations },
  spec: { selector: { app: name }, ports: [{ port: 80 }] },
});

interface Status {
  code: number;
  reason: string;
  details?: { causes?: Array<{ field: string; message: string }> };
}

/** Issue 20, defects 5 and 6: the seed's annotations are checked at admission; a bad apply body is a 4xx. */
describe('vK8s admission of the seed annotations, and apply bodies', () => {
  let h: ConfigHarness;

  before(async () => {
    h = await startConfigHarness();
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
  });
  after(async () => {
    await h?.close();
  });

  it('refuses svc.io/sites "garbage" with 422 naming the annotation, and stores nothing', async () => {
    const created = await h.call('POST', DEPLOYMENTS, { body: deployment('web', { 'svc.io/sites': 'garbage' }) });
    assert.equal(created.status, 422, created.body);
    const cause = created.json<Status>().details?.causes?.[0];
    assert.equal(cause?.field, 'metadata.annotations[svc.io/sites]');
    assert.match(cause?.message ?? '', /must be namespace\/name or a comma-separated list of them/);
    assert.equal((await h.call('GET', `${DEPLOYMENTS}/web`)).status, 404);
  });

  it('refuses a live object patched to a malformed svc.io/virtual-sites, and keeps it as it was', async () => {
    assert.equal((await h.call('POST', DEPLOYMENTS, { body: deployment('live', {}) })).status, 201);
    const patched = await h.call('PATCH', `${DEPLOYMENTS}/live`, { raw: JSON.stringify({ metadata: { annotations: { 'svc.io/virtual-sites': 'not a ref' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 422, patched.body);
    const stored = (await h.call('GET', `${DEPLOYMENTS}/live`)).json<{ metadata: { annotations?: Record<string, string> } }>();
    assert.equal(stored.metadata.annotations?.['svc.io/virtual-sites'], undefined);
  });

  it("refuses a Service's proxy-type and http2-enable outside the seed's sets, and accepts the seed's values", async () => {
    const refused = await h.call('POST', SERVICES, { body: service('bad', { 'svc.io/proxy-type': 'SOCKS', 'svc.io/http2-enable': 'maybe' }) });
    assert.equal(refused.status, 422, refused.body);
    assert.deepEqual(
      refused.json<Status>().details?.causes?.map((c) => c.field),
      ['metadata.annotations[svc.io/proxy-type]', 'metadata.annotations[svc.io/http2-enable]'],
    );
    const accepted = await h.call('POST', SERVICES, { body: service('good', { 'svc.io/proxy-type': 'HTTP_PROXY', 'svc.io/http2-enable': 'true' }) });
    assert.equal(accepted.status, 201, accepted.body);
  });

  it('refuses a malformed svc.io/sni-names with 422 naming the annotation and its form, and accepts a list of DNS names', async () => {
    const refused = await h.call('POST', SERVICES, { body: service('sni-bad', { 'svc.io/proxy-type': 'TCP_PROXY_WITH_SNI', 'svc.io/sni-names': 'api.example.com,*.example.com' }) });
    assert.equal(refused.status, 422, refused.body);
    const cause = refused.json<Status>().details?.causes?.[0];
    assert.equal(cause?.field, 'metadata.annotations[svc.io/sni-names]');
    assert.match(cause?.message ?? '', /"\*\.example\.com" is not a DNS name; must be a comma-separated list of at most 32 DNS names/);
    const accepted = await h.call('POST', SERVICES, { body: service('sni-good', { 'svc.io/proxy-type': 'TCP_PROXY_WITH_SNI', 'svc.io/sni-names': 'api.example.com, www.example.com' }) });
    assert.equal(accepted.status, 201, accepted.body);
  });

  it('answers a server-side apply without metadata (name from the URL) and refuses non-object metadata with 400', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } };
    const applied = await h.call('PATCH', `${BASE}/api/v1/namespaces/default/configmaps/cm1?fieldManager=test`, { raw: JSON.stringify(body), headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(applied.status, 201, applied.body);
    const bad = await h.call('PATCH', `${BASE}/api/v1/namespaces/default/configmaps/cm2?fieldManager=test`, { raw: JSON.stringify({ ...body, metadata: 'x' }), headers: { 'content-type': 'application/apply-patch+yaml' } });
    assert.equal(bad.status, 400, bad.body);
    assert.equal((await h.call('GET', `${BASE}/api/v1/namespaces/default/configmaps/cm2`)).status, 404);
  });
});
