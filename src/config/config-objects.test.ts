import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PLATFORM_TENANT } from '../auth/principal.js';
import { NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import { startConfigHarness, type ConfigHarness } from '../server/testing/config-harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339_NANO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/;
const meta = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, namespace: 'default', ...extra });

/** A valid spec of every kind that has a public create. */
const VALID: Record<string, Record<string, unknown>> = {
  dns_domain: { vendor_managed: null },
  policer: { committed_information_rate: 100, burst_size: 10 },
  forwarding_class: { interface_group: 'ANY_AVAILABLE_INTERFACE', dscp: { dscp_class: 'DSCP_CLASS2' }, queue_id_to_use: 'DSCP_CLASS2' },
  virtual_site: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['env=prod', 'tier in (gold)'] } },
  virtual_k8s: { vsite_refs: [{ namespace: 'svc-io-shared', name: 'all-regional-edges' }], default_flavor_ref: { namespace: 'svc-io-shared', name: 'tiny' } },
  workload_flavor: { vcpus: 0.5, memory: 512, ephemeral_storage: 1024 },
  secret_management_access: {
    provider_name: 'vault',
    access_info: { server_endpoint: 'vault.example.com:8200', scheme: 'HTTPS' },
    vault_auth_info: { token: { clear_secret_info: { url: 'string:///czNjcjN0' } } },
  },
  secret_policy: {
    algo: 'DENY_OVERRIDES',
    rules: [
      { metadata: { name: 'allow-web' }, spec: { action: 'ALLOW', client_selector: { expressions: ['app=web'] } } },
      { metadata: { name: 'deny-test' }, spec: { action: 'DENY', client_name_matcher: { regex_values: ['^test-.*$'] } } },
    ],
    decrypt_cache_timeout: '6h',
  },
};

function pathOf(kind: ConfigKind, namespace = 'default'): string {
  return `/api/${kind.slug}/namespaces/${namespace}/${kind.kind}s`;
}

describe('configuration objects over HTTPS', () => {
  let h: ConfigHarness;
  before(async () => {
    h = await startConfigHarness();
  });
  after(() => h?.close());

  it("creates the seed's dns_domain exactly as the seed shows", async () => {
    const res = await h.call('POST', '/api/config/namespaces/default/dns_domains', {
      raw: '{"metadata":{"name":"example.com","namespace":"default"},"spec":{"vendor_managed":null}}',
    });
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json<{ metadata: Record<string, unknown>; system_metadata: Record<string, unknown>; spec: Record<string, unknown> }>();
    assert.deepEqual(Object.keys(body).sort(), ['metadata', 'spec', 'system_metadata']);
    assert.equal(body.spec['domain'], '');
    assert.equal(body.spec['txt_record'], '');
    assert.equal(body.spec['dnssec_mode'], 'DNSSEC_DISABLE');
    assert.deepEqual(body.spec['vendor_managed'], {}, 'the default one-of choice is filled in');
    assert.deepEqual(body.metadata, { name: 'example.com', namespace: 'default', labels: {}, annotations: {}, description: '', disable: false });
    const sm = body.system_metadata;
    assert.match(String(sm['uid']), UUID);
    assert.match(String(sm['creation_timestamp']), RFC3339_NANO);
    assert.equal(sm['tenant'], 'acme');
    assert.equal(sm['creator_class'], 'edgeplane-api');
    assert.equal(sm['creator_id'], 'admin@acme');
    assert.equal(sm['object_index'], 0);
    assert.equal(sm['deletion_timestamp'], null);
    assert.equal(sm['modification_timestamp'], null);
    assert.deepEqual(sm['finalizers'], []);
  });

  it("answers the seed's forwarding_class get (response_format=0) with the full envelope", async () => {
    await h.call('POST', '/api/config/namespaces/default/policers', { body: { metadata: meta('seed-policer'), spec: VALID['policer'] } });
    const created = await h.call('POST', '/api/config/namespaces/default/forwarding_classs', {
      body: { metadata: meta('seed-fc'), spec: { interface_group: 'INTERFACE_GROUP1', dscp_based_queue: {}, policer: { name: 'seed-policer' } } },
    });
    assert.equal(created.status, 200, created.body);
    const res = await h.call('GET', '/api/config/namespaces/default/forwarding_classs/seed-fc?response_format=0');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    for (const member of ['object', 'create_form', 'replace_form', 'resource_version', 'metadata', 'system_metadata', 'spec', 'status', 'referring_objects']) {
      assert.ok(member in body, `missing ${member}`);
    }
    assert.equal(body['create_form'], null);
    assert.equal(body['replace_form'], null);
    assert.match(String(body['resource_version']), /^\d+$/);
    const spec = body['spec'] as Record<string, unknown>;
    assert.equal(spec['interface_group'], 'INTERFACE_GROUP1');
    assert.deepEqual(spec['no_marking'], {});
    assert.deepEqual(spec['dscp_based_queue'], {});
    assert.deepEqual(spec['policer'], { tenant: 'acme', namespace: 'default', name: 'seed-policer' });
    assert.deepEqual(Object.keys(spec['policer'] as object), ['tenant', 'namespace', 'name']);
    assert.deepEqual(body['status'], []);
    assert.deepEqual(body['referring_objects'], []);
  });

  it('selects the members of every response_format, by name and by number', async () => {
    const base = '/api/config/namespaces/default/forwarding_classs/seed-fc?response_format=';
    const expectations: Array<[string, string[]]> = [
      ['GET_RSP_FORMAT_DEFAULT', ['object', 'metadata', 'system_metadata', 'spec']],
      ['GET_RSP_FORMAT_FOR_CREATE', ['create_form']],
      ['GET_RSP_FORMAT_FOR_REPLACE', ['replace_form']],
      ['GET_RSP_FORMAT_STATUS', []],
      ['GET_RSP_FORMAT_READ', ['metadata', 'system_metadata', 'spec']],
      ['GET_RSP_FORMAT_REFERRING_OBJECTS', []],
      ['GET_RSP_FORMAT_BROKEN_REFERENCES', []],
    ];
    const objectMembers = ['object', 'create_form', 'replace_form', 'metadata', 'system_metadata', 'spec'];
    for (const [i, [name, present]] of expectations.entries()) {
      for (const format of [name, String(i)]) {
        const body = (await h.call('GET', base + format)).json();
        assert.match(String(body['resource_version']), /^\d+$/, format);
        for (const member of objectMembers) assert.equal(body[member] !== null, present.includes(member), `${format}: ${member}`);
        for (const member of ['status', 'referring_objects', 'deleted_referred_objects', 'disabled_referred_objects']) assert.ok(Array.isArray(body[member]), `${format}: ${member}`);
      }
    }
    const createForm = (await h.call('GET', base + '1')).json<{ create_form: { metadata: { name: string } } }>().create_form;
    assert.equal(createForm.metadata.name, '');
    const bad = await h.call('GET', base + '9');
    assert.equal(bad.status, 400);
    assert.match(bad.json<{ message: string }>().message, /response_format: "9" is not one of GET_RSP_FORMAT_DEFAULT \(0\)/);
  });

  it('creates, gets, lists, replaces and deletes objects of every kind', async () => {
    for (const [name, spec] of Object.entries(VALID)) {
      const kind = NAMESPACED_KINDS.get(name) as ConfigKind;
      const objectName = name === 'dns_domain' ? 'crud.example.org' : `crud-${name.replace(/_/g, '-')}`;
      const namespace = name === 'virtual_k8s' ? 'system' : 'default';
      const created = await h.call('POST', pathOf(kind, namespace), { body: { metadata: { name: objectName, labels: { suite: 'crud' } }, spec } });
      assert.equal(created.status, 200, `${name}: ${created.body}`);
      const got = await h.call('GET', `${pathOf(kind, namespace)}/${objectName}`);
      assert.equal(got.status, 200, name);
      const version = got.json()['resource_version'];
      const listed = await h.call('GET', `${pathOf(kind, namespace)}?label_filter=suite%3Dcrud`);
      assert.deepEqual(listed.json<{ items: Array<{ name: string }> }>().items.map((i) => i.name), [objectName], name);
      const replaced = await h.call('PUT', `${pathOf(kind, namespace)}/${objectName}`, {
        body: { metadata: { name: objectName, labels: { suite: 'crud', replaced: 'yes' }, description: 'replaced' }, spec, resource_version: version },
      });
      assert.deepEqual([replaced.status, replaced.body], [200, '{}'], name);
      const after = (await h.call('GET', `${pathOf(kind, namespace)}/${objectName}?response_format=4`)).json<{ metadata: { description: string }; system_metadata: { modification_timestamp: string } }>();
      assert.equal(after.metadata.description, 'replaced');
      assert.match(after.system_metadata.modification_timestamp, RFC3339_NANO);
      const deleted = await h.call('DELETE', `${pathOf(kind, namespace)}/${objectName}`, { body: { namespace, name: objectName } });
      assert.deepEqual([deleted.status, deleted.body], [200, '{}'], name);
      assert.equal((await h.call('GET', `${pathOf(kind, namespace)}/${objectName}`)).status, 404, name);
    }
  });

  it('sites: no public create; read, list, replace of labels, description and location; delete', async () => {
    const siteKind = NAMESPACED_KINDS.get('site') as ConfigKind;
    await h.controlPlane.registerSite({ tenant: 'acme', namespace: 'system', name: 'ce-one', labels: { env: 'prod' }, spec: { site_type: 'CUSTOMER_EDGE' } });
    assert.equal((await h.call('POST', pathOf(siteKind, 'system'), { body: { metadata: { name: 'x' }, spec: { site_type: 'CUSTOMER_EDGE' } } })).status, 405);
    const got = await h.call('GET', `${pathOf(siteKind, 'system')}/ce-one`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.json<{ status: unknown[] }>().status, [{ state: 'WAITING_FOR_REGISTRATION' }]);
    const relabel = await h.call('PUT', `${pathOf(siteKind, 'system')}/ce-one`, {
      body: { metadata: { name: 'ce-one', labels: { env: 'prod', rack: 'r1' }, description: 'rack one' }, spec: { site_type: 'CUSTOMER_EDGE', location: { latitude: 48.1, longitude: 11.5 } } },
    });
    assert.equal(relabel.status, 200, relabel.body);
    const retype = await h.call('PUT', `${pathOf(siteKind, 'system')}/ce-one`, { body: { metadata: { name: 'ce-one' }, spec: { site_type: 'REGIONAL_EDGE' } } });
    assert.equal(retype.status, 400);
    assert.match(retype.json<{ message: string }>().message, /only metadata.labels, metadata.description and spec.location of a site can be replaced/);
  });

  it('references: filled in, checked for kind, namespace and existence; shared and svc-io-shared are reachable', async () => {
    const fc = (name: string, policerRef: Record<string, unknown>): Promise<{ status: number; body: string }> =>
      h.call('POST', '/api/config/namespaces/default/forwarding_classs', { body: { metadata: meta(name), spec: { interface_group: 'INTERFACE_GROUP2', policer: policerRef } } });
    await h.call('POST', '/api/config/namespaces/shared/policers', { body: { metadata: { name: 'shared-policer' }, spec: VALID['policer'] } });
    await h.call('POST', '/api/web/namespaces', { body: { metadata: { name: 'team-x' }, spec: {} } });
    await h.call('POST', '/api/config/namespaces/team-x/policers', { body: { metadata: { name: 'team-policer' }, spec: VALID['policer'] } });
    assert.equal((await fc('ref-shared', { namespace: 'shared', name: 'shared-policer' })).status, 200);
    const other = await fc('ref-other', { namespace: 'team-x', name: 'team-policer' });
    assert.equal(other.status, 400);
    assert.match(other.body, /spec.policer: may refer only to objects in namespace default, shared or svc-io-shared/);
    const missing = await fc('ref-missing', { name: 'nope' });
    assert.match(missing.body, /spec.policer: policer acme\/default\/nope does not exist/);
    const wrongKind = await fc('ref-kind', { name: 'seed-policer', kind: 'virtual_site' });
    assert.match(wrongKind.body, /spec.policer: must refer to a policer, not a virtual_site/);
    const foreign = await fc('ref-foreign', { tenant: 'globex', namespace: 'shared', name: 'shared-policer' });
    assert.equal(foreign.status, 400);
    const tinyRef = await h.call('GET', '/api/config/namespaces/svc-io-shared/workload_flavors/tiny?response_format=GET_RSP_FORMAT_READ');
    assert.equal(tinyRef.json<{ system_metadata: { tenant: string } }>().system_metadata.tenant, PLATFORM_TENANT);
  });

  it('references whose names no object can have are refused with 400 before any lookup, and nothing is stored', async () => {
    const fc = (name: string, policerRef: Record<string, unknown>): Promise<{ status: number; body: string }> =>
      h.call('POST', '/api/config/namespaces/default/forwarding_classs', { body: { metadata: meta(name), spec: { interface_group: 'INTERFACE_GROUP2', policer: policerRef } } });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['bad-space', { name: 'a b' }, 'spec.policer: name "a b": '],
      ['bad-nul', { name: 'a\u0000b' }, 'spec.policer: name "a\u0000b": '],
      ['bad-unicode', { name: 'pölicer' }, 'spec.policer: name "pölicer": '],
      ['bad-namespace', { namespace: 'Shared Space', name: 'p' }, 'spec.policer: '],
    ];
    for (const [name, ref, message] of cases) {
      const response = await fc(name, ref);
      assert.equal(response.status, 400, `${name}: ${response.body}`);
      const text = (JSON.parse(response.body) as { message: string }).message;
      assert.ok(text.startsWith(message), `${name}: ${text}`);
      assert.equal((await h.call('GET', `/api/config/namespaces/default/forwarding_classs/${name}`)).status, 404, name);
    }
  });

  it('a body nested 100,000 levels deep is refused with 400, and nothing is stored', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const text = `{"metadata":{"name":"deep","namespace":"default"},"spec":{"interface_group":"INTERFACE_GROUP2","x":${deep}}}`;
    const response = await h.call('POST', '/api/config/namespaces/default/forwarding_classs', { raw: text });
    assert.equal(response.status, 400, response.body);
    assert.match(response.body, /nests objects and arrays more than 64 levels deep/);
    assert.equal((await h.call('GET', '/api/config/namespaces/default/forwarding_classs/deep')).status, 404);
  });

  it('referring_objects, fail_if_referred and broken references', async () => {
    await h.call('POST', '/api/config/namespaces/default/policers', { body: { metadata: meta('pol-a'), spec: VALID['policer'] } });
    await h.call('POST', '/api/config/namespaces/default/policers', { body: { metadata: meta('pol-b'), spec: VALID['policer'] } });
    await h.call('POST', '/api/config/namespaces/default/forwarding_classs', { body: { metadata: meta('fc-a'), spec: { interface_group: 'INTERFACE_GROUP1', policer: { name: 'pol-a' } } } });
    await h.call('POST', '/api/config/namespaces/default/forwarding_classs', { body: { metadata: meta('fc-b'), spec: { interface_group: 'INTERFACE_GROUP1', policer: { name: 'pol-b' } } } });
    const referring = (await h.call('GET', '/api/config/namespaces/default/policers/pol-a?response_format=5')).json<{ referring_objects: Array<Record<string, string>> }>();
    assert.deepEqual(referring.referring_objects.map((r) => [r['kind'], r['tenant'], r['namespace'], r['name']]), [['forwarding_class', 'acme', 'default', 'fc-a']]);
    assert.match(String(referring.referring_objects[0]?.['uid']), UUID);
    const refused = await h.call('DELETE', '/api/config/namespaces/default/policers/pol-a', { body: { namespace: 'default', name: 'pol-a', fail_if_referred: true } });
    assert.equal(refused.status, 409);
    assert.match(refused.body, /is referred by forwarding_class default\/fc-a/);
    assert.equal((await h.call('DELETE', '/api/config/namespaces/default/policers/pol-a')).status, 200);
    await h.call('PUT', '/api/config/namespaces/default/policers/pol-b', { body: { metadata: meta('pol-b', { disable: true }), spec: VALID['policer'] } });
    const brokenA = (await h.call('GET', '/api/config/namespaces/default/forwarding_classs/fc-a?response_format=6')).json<Record<string, Array<Record<string, string>>>>();
    assert.deepEqual(brokenA['deleted_referred_objects']?.map((r) => r['name']), ['pol-a']);
    const brokenB = (await h.call('GET', '/api/config/namespaces/default/forwarding_classs/fc-b?response_format=6')).json<Record<string, Array<Record<string, string>>>>();
    assert.deepEqual(brokenB['disabled_referred_objects']?.map((r) => r['name']), ['pol-b']);
  });

  it('lists filter by label selector; report_fields fills metadata, system_metadata and get_spec', async () => {
    for (const [name, labels] of [['lf-1', { app: 'web', tier: 'gold' }], ['lf-2', { app: 'web' }], ['lf-3', { app: 'db' }]] as const) {
      await h.call('POST', '/api/config/namespaces/default/workload_flavors', { body: { metadata: meta(name, { labels }), spec: VALID['workload_flavor'] } });
    }
    const names = async (filter: string): Promise<string[]> =>
      (await h.call('GET', `/api/config/namespaces/default/workload_flavors?label_filter=${encodeURIComponent(filter)}`)).json<{ items: Array<{ name: string }> }>().items.map((i) => i.name);
    assert.deepEqual(await names('app=web'), ['lf-1', 'lf-2']);
    assert.deepEqual(await names('app in (web,db),!tier'), ['lf-2', 'lf-3']);
    assert.deepEqual(await names('app!=web'), ['lf-3']);
    const plain = (await h.call('GET', '/api/config/namespaces/default/workload_flavors?label_filter=app%3Ddb')).json<{ items: Array<Record<string, unknown>> }>().items[0] ?? {};
    assert.deepEqual([plain['metadata'], plain['system_metadata'], plain['get_spec']], [null, null, null]);
    assert.equal(plain['tenant'], 'acme');
    const full = (await h.call('GET', '/api/config/namespaces/default/workload_flavors?label_filter=app%3Ddb&report_fields')).json<{ items: Array<Record<string, Record<string, unknown>>> }>().items[0] ?? {};
    assert.equal(full['metadata']?.['name'], 'lf-3');
    assert.equal(full['get_spec']?.['memory'], 512);
    assert.equal(typeof full['system_metadata']?.['uid'], 'string');
  });

  it('virtual_site selectees: the sites of its type that its expressions select', async () => {
    const register = (site: Parameters<ConfigHarness['controlPlane']['registerSite']>[0]): Promise<void> => h.controlPlane.registerSite(site);
    await register({ tenant: PLATFORM_TENANT, namespace: 'svc-io-system', name: 're-paris', labels: { 'svc.io/siteType': 'svc-io-re', 'svc.io/country': 'fr' }, spec: { site_type: 'REGIONAL_EDGE' } });
    await register({ tenant: PLATFORM_TENANT, namespace: 'svc-io-system', name: 're-tokyo', labels: { 'svc.io/siteType': 'svc-io-re', 'svc.io/country': 'jp' }, spec: { site_type: 'REGIONAL_EDGE' } });
    await register({ tenant: 'acme', namespace: 'system', name: 'ce-store-7', labels: { env: 'prod', tier: 'gold' }, spec: { site_type: 'CUSTOMER_EDGE' } });
    await register({ tenant: 'acme', namespace: 'system', name: 'ce-lab', labels: { env: 'dev' }, spec: { site_type: 'CUSTOMER_EDGE' } });
    await h.call('POST', '/api/config/namespaces/default/virtual_sites', { body: { metadata: meta('prod-ce'), spec: VALID['virtual_site'] } });
    const ce = (await h.call('GET', '/api/config/namespaces/default/virtual_sites/prod-ce/selectees')).json<{ items: Array<Record<string, string>> }>();
    assert.deepEqual(ce.items.map((i) => i['name']).sort(), ['ce-one', 'ce-store-7']);
    assert.deepEqual(ce.items[0], { kind: 'site', tenant: 'acme', namespace: 'system', name: ce.items[0]?.['name'] });
    await h.call('POST', '/api/config/namespaces/default/virtual_sites', { body: { metadata: meta('fr-re'), spec: { site_type: 'REGIONAL_EDGE', site_selector: { expressions: ['svc.io/country=fr'] } } } });
    const fr = (await h.call('GET', '/api/config/namespaces/default/virtual_sites/fr-re/selectees')).json<{ items: Array<Record<string, string>> }>();
    assert.deepEqual(fr.items, [{ kind: 'site', tenant: PLATFORM_TENANT, namespace: 'svc-io-system', name: 're-paris' }]);
    const all = (await h.call('GET', '/api/config/namespaces/svc-io-shared/virtual_sites/all-regional-edges/selectees')).json<{ items: Array<Record<string, string>> }>();
    assert.deepEqual(all.items.map((i) => i['name']).sort(), ['re-paris', 're-tokyo']);
  });

  it('dns_domain: status shows the TXT value to publish; verify looks it up in DNS', async () => {
    await h.call('POST', '/api/config/namespaces/default/dns_domains', { body: { metadata: meta('verify.example.net'), spec: {} } });
    const status = (await h.call('GET', '/api/config/namespaces/default/dns_domains/verify.example.net?response_format=3')).json<{ status: Array<Record<string, unknown>> }>().status[0] ?? {};
    assert.equal(status['domain_verification'], 'DNS_DOMAIN_VERIFICATION_PENDING');
    const txt = String(status['txt_record']);
    assert.match(txt, /^edgeplane-verification=[0-9a-f]{32}$/);
    const before = await h.call('POST', '/api/config/namespaces/default/dns_domain/verify.example.net/verify');
    assert.equal(before.status, 200, before.body);
    assert.equal(before.json<{ status: Record<string, unknown> }>().status['domain_verification'], 'DNS_DOMAIN_VERIFICATION_FAILED');
    h.dns.setTxt('verify.example.net', ['v=spf1 -all', txt]);
    const after = (await h.call('POST', '/api/config/namespaces/default/dns_domain/verify.example.net/verify')).json<{ status: Record<string, unknown> }>();
    assert.equal(after.status['domain_verification'], 'DNS_DOMAIN_VERIFICATION_SUCCESS');
    const stored = (await h.call('GET', '/api/config/namespaces/default/dns_domains/verify.example.net?response_format=3')).json<{ status: Array<Record<string, unknown>> }>().status[0] ?? {};
    assert.equal(stored['domain_verification'], 'DNS_DOMAIN_VERIFICATION_SUCCESS');
    assert.equal(stored['txt_record'], txt);
  });
});
