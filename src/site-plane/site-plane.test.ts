import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpsRequest } from '../client/https-client.js';
import { x509 } from '../common/x509.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import { FakeEvents, FakePlacement, site as placedSite } from '../controllers/testing/controller-harness.js';
import { caPin, parseRegistrationToken } from '../site-api/registration-token.js';
import { startSitePlaneHarness, type SitePlaneHarness } from './testing/site-plane-harness.js';
import { agentKeys, eventually, kubectl, openWatch, type StreamLine } from './testing/site-plane-client.js';

const CLUSTER: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk' };

function pod(name: string, site: string, nodeName: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'web', 'svc.io/siteName': site } }, spec: { nodeName, containers: [{ name: 'web', image: 'nginx' }] } };
}

const readyOf = (object: KubeObject): string | undefined => ((object['status'] as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready')?.status;

describe('site plane over HTTPS', () => {
  let h: SitePlaneHarness;
  let agent: { cert: string; key: string };
  const placement = new FakePlacement();
  const events = new FakeEvents();
  before(async () => {
    h = await startSitePlaneHarness({ graceSeconds: 2, bookmarkIntervalMs: 300, placement, events });
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { token: h.adminToken, body: { metadata: { name: 'vk' }, spec: {} } })).status, 200);
  });
  after(() => h?.close());

  it('site API serves the CA and issues tokens that pin it, to tenant admins only', async () => {
    const ca = await h.call('GET', '/api/sites/v1/ca');
    assert.equal(ca.status, 200);
    assert.equal(ca.body, h.ca);
    const issued = await h.call('POST', '/api/sites/v1/tokens', { token: h.adminToken, body: { type: 'CUSTOMER_EDGE', ttl_seconds: 600 } });
    assert.equal(issued.status, 200, issued.body);
    const { token, expires } = issued.json<{ token: string; expires: string }>();
    const payload = parseRegistrationToken(token);
    assert.equal(payload.server, h.url);
    assert.equal(payload.ca, caPin(h.ca));
    assert.ok(Date.parse(expires) > Date.now() + 590_000);
    const denied = await h.call('POST', '/api/sites/v1/tokens', { token: h.adminToken, body: { type: 'REGIONAL_EDGE' } });
    assert.equal(denied.status, 403);
    assert.equal(denied.json()['kind'], 'Status');
    assert.equal((await h.call('POST', '/api/sites/v1/tokens', { body: { type: 'CUSTOMER_EDGE' } })).status, 401);
  });

  it('a registration or status batch nested 100,000 levels deep is 400 BadRequest and makes no site (issue 20: it was a 500)', async () => {
    const token = (await h.call('POST', '/api/sites/v1/tokens', { token: h.adminToken, body: { type: 'CUSTOMER_EDGE' } })).json<{ token: string }>().token;
    const keys = await agentKeys();
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const body = JSON.stringify({ agent: 'agent-deep', csr: keys.csr, sites: [{ name: 'edge-deep', type: '$DEEP', nodes: [{ name: 'n0', cpu: '1', memory: '1Gi' }] }] }).replace('"$DEEP"', deep);
    const refused = await h.call('POST', '/api/sites/v1/register', { bearer: token, raw: body });
    assert.equal(refused.status, 400, refused.body);
    assert.deepEqual([refused.json()['reason'], refused.json()['message']], ['BadRequest', 'the request body nests objects and arrays more than 64 levels deep']);
    assert.equal((await h.call('GET', '/api/config/namespaces/system/sites/edge-deep', { token: h.adminToken })).status, 404);
  });

  it('site registration issues the agent certificate and makes the site object and its Nodes', async () => {
    const token = (await h.call('POST', '/api/sites/v1/tokens', { token: h.adminToken, body: { type: 'CUSTOMER_EDGE' } })).json<{ token: string }>().token;
    const keys = await agentKeys();
    const nodes = [{ name: 'n0', cpu: '8', memory: '16Gi' }, { name: 'n1', cpu: '4', memory: '8192Mi' }];
    const body = { agent: 'agent-1', csr: keys.csr, sites: [{ name: 'edge-a', type: 'CUSTOMER_EDGE', labels: { 'svc.io/region': 'eu' }, nodes }] };
    const registered = await h.call('POST', '/api/sites/v1/register', { bearer: token, body });
    assert.equal(registered.status, 200, registered.body);
    const result = registered.json<{ certificate: string; ca: string; sites: string[] }>();
    assert.deepEqual(result.sites, ['edge-a']);
    assert.equal(result.ca, h.ca);
    const cert = new x509.X509Certificate(result.certificate.split('-----END CERTIFICATE-----')[0] + '-----END CERTIFICATE-----');
    assert.equal(cert.subject, 'CN=site-agent:agent-1, O=acme');
    agent = { cert: result.certificate, key: keys.key };

    const site = await h.call('GET', '/api/config/namespaces/system/sites/edge-a', { token: h.adminToken });
    assert.equal(site.status, 200, site.body);
    const object = site.json<{ metadata: { labels: Record<string, string> }; spec: Record<string, unknown>; status: Array<Record<string, unknown>> }>();
    assert.deepEqual(object.metadata.labels, { 'svc.io/region': 'eu', 'svc.io/siteName': 'edge-a', 'svc.io/siteType': 'svc-io-ce' });
    assert.equal(object.status[0]?.['state'], 'ONLINE');
    assert.deepEqual(object.spec['nodes'], [{ name: 'n0', cpu: '8', memory: '16Gi' }, { name: 'n1', cpu: '4', memory: '8Gi' }]);
    await eventually(() => h.sitePlane.inventory.nodesOf('edge-a').length, (n) => n === 2, 'inventory nodes');
    assert.equal(h.sitePlane.inventory.stateOf('edge-a'), 'ONLINE');

    const list = await h.call('GET', '/api/vk8s/namespaces/default/vk/api/v1/nodes?labelSelector=kubernetes.io%2Fhostname%3Dedge-a-n0', { token: h.adminToken });
    assert.equal(list.status, 200, list.body);
    const items = list.json<{ items: KubeObject[] }>().items;
    assert.deepEqual(items.map((n) => n.metadata.name), ['edge-a-n0']);
    assert.equal(items[0]?.metadata.labels?.['svc.io/siteName'], 'edge-a');
    const one = await h.call('GET', '/api/vk8s/namespaces/default/vk/api/v1/nodes/edge-a-n1', { token: h.adminToken });
    assert.equal(one.status, 200, one.body);
    assert.deepEqual(one.json<{ status: { capacity: unknown } }>().status.capacity, { cpu: '4', memory: '8Gi', pods: '110' });
    const table = await httpsRequest(`${h.url}/api/vk8s/namespaces/default/vk/api/v1/nodes`, h.ca, { headers: { authorization: `APIToken ${h.adminToken}`, accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' } });
    const rows = table.json<{ rows: Array<{ cells: unknown[] }> }>().rows.map((r) => r.cells.slice(0, 2));
    assert.deepEqual(rows, [['edge-a-n0', 'Ready'], ['edge-a-n1', 'Ready']]);
    const watched = await httpsRequest(`${h.url}/api/vk8s/namespaces/default/vk/api/v1/nodes?watch=1&timeoutSeconds=1`, h.ca, { headers: { authorization: `APIToken ${h.adminToken}` } });
    const events = watched.body.trim().split('\n').map((l) => JSON.parse(l) as StreamLine);
    assert.deepEqual(events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'edge-a-n0'], ['ADDED', 'edge-a-n1']]);
    // The site's lease is 2 s here: a heartbeat first, so a slow kubectl on a busy machine still sees it Ready.
    assert.equal((await h.call('POST', '/api/sites/v1/heartbeat', { body: { sites: ['edge-a'] }, ...agent })).status, 200);
    const got = await kubectl(h, ['get', 'nodes', '-l', 'svc.io/siteName=edge-a', '--no-headers']);
    assert.deepEqual(got.trim().split('\n').map((row) => row.split(/\s+/).slice(0, 3)), [['edge-a-n0', 'Ready', '<none>'], ['edge-a-n1', 'Ready', '<none>']]);

    const platformToken = (await h.call('POST', '/api/sites/v1/tokens', { token: h.platformToken, body: { type: 'REGIONAL_EDGE' } })).json<{ token: string }>().token;
    const taken = await h.call('POST', '/api/sites/v1/register', { bearer: platformToken, body: { ...body, agent: 're-agent', sites: [{ ...body.sites[0], type: 'REGIONAL_EDGE' }] } });
    assert.equal(taken.status, 409, taken.body);
    assert.match(taken.json<{ message: string }>().message, /"edge-a" is already registered/);
  });

  it('site API serves an agent the objects placed on its sites, and only those', async () => {
    const scope = { cluster: CLUSTER, dryRun: false, fieldManager: 'test' };
    const create = async (resource: string, object: KubeObject): Promise<void> => {
      const store = h.storage.storeFor({ group: '', resource });
      assert.ok(store !== undefined);
      store.strategy.defaults(object);
      await store.create(scope, object);
    };
    placement.placeObject('for-edge-a', [placedSite('edge-a', 'CUSTOMER_EDGE'), placedSite('paris')]);
    placement.placeObject('for-paris', [placedSite('paris')]);
    await create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'for-edge-a' }, data: { k: 'v' } });
    await create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'for-paris' }, data: { k: 'v' } });
    await create('configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nowhere' } });
    const claim = (name: string, site: string): KubeObject => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, labels: { 'svc.io/siteName': site } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    await create('persistentvolumeclaims', claim('data-web-edge-a-0', 'edge-a'));
    await create('persistentvolumeclaims', claim('data-web-paris-0', 'paris'));

    const listed = await h.call('GET', '/api/sites/v1/objects?kind=configmaps', agent);
    assert.equal(listed.status, 200, listed.body);
    const list = listed.json<{ kind: string; resourceVersion: string; items: Array<{ cluster: ClusterRef; sites: string[]; object: KubeObject }> }>();
    assert.equal(list.kind, 'PlacedObjectList');
    assert.deepEqual(list.items.map((i) => [i.cluster, i.sites, i.object.metadata.name, i.object['data']]), [[CLUSTER, ['edge-a'], 'for-edge-a', { k: 'v' }]]);
    const claims = (await h.call('GET', '/api/sites/v1/objects?kind=persistentvolumeclaims', agent)).json<{ items: Array<{ sites: string[]; object: KubeObject }> }>();
    assert.deepEqual(claims.items.map((i) => [i.sites, i.object.metadata.name]), [[['edge-a'], 'data-web-edge-a-0']]);
    const bad = await h.call('GET', '/api/sites/v1/objects?kind=pods', agent);
    assert.equal(bad.status, 400);
    assert.match(bad.json<{ message: string }>().message, /kind: must be one of configmaps, secrets/);
    assert.equal((await h.call('GET', '/api/sites/v1/objects?kind=configmaps')).status, 401);
  });

  it('site API: Endpoints go where their Service is placed, a long poll answers on a change, and the site proxy\'s Events land on placed Services only', async () => {
    const scope = { cluster: CLUSTER, dryRun: false, fieldManager: 'test' };
    const storeOf = (resource: string) => {
      const store = h.storage.storeFor({ group: '', resource });
      assert.ok(store !== undefined);
      return store;
    };
    const create = async (resource: string, object: KubeObject): Promise<KubeObject> => {
      const store = storeOf(resource);
      store.strategy.defaults(object);
      return store.create(scope, object);
    };
    placement.placeObject('svc-here', [placedSite('edge-a', 'CUSTOMER_EDGE')]);
    placement.placeObject('svc-far', [placedSite('paris')]);
    const here = await create('services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-here' }, spec: { ports: [{ port: 80 }] } });
    await create('services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc-far' }, spec: { ports: [{ port: 80 }] } });
    const endpoints = (name: string, ip: string): KubeObject => ({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name }, subsets: [{ addresses: [{ ip }], ports: [{ port: 8080 }] }] });
    await create('endpoints', endpoints('svc-here', '10.244.0.2'));
    await create('endpoints', endpoints('svc-far', '10.244.0.3'));
    await create('endpoints', endpoints('no-service', '10.244.0.4'));
    type Listed = { resourceVersion: string; items: Array<{ sites: string[]; object: KubeObject }> };
    const listed = await h.call('GET', '/api/sites/v1/objects?kind=endpoints', agent);
    assert.equal(listed.status, 200, listed.body);
    const first = listed.json<Listed>();
    assert.deepEqual(first.items.map((i) => [i.sites, i.object.metadata.name]), [[['edge-a'], 'svc-here']]);

    // Nothing changes: the poll answers at its timeout with the same list.
    const quiet = Date.now();
    const unchanged = await h.call('GET', `/api/sites/v1/objects?kind=endpoints&after=${first.resourceVersion}&timeoutSeconds=1`, agent);
    assert.ok(Date.now() - quiet >= 900, 'it waited');
    assert.deepEqual(unchanged.json<Listed>().items.map((i) => i.object.metadata.name), ['svc-here']);
    // A change answers the poll at once (long before its 20 s).
    const started = Date.now();
    const polled = h.call('GET', `/api/sites/v1/objects?kind=endpoints&after=${first.resourceVersion}&timeoutSeconds=20`, agent);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await storeOf('endpoints').update(scope, 'svc-here', (current) => ({ ...current, subsets: [{ addresses: [{ ip: '10.244.0.9' }], ports: [{ port: 8080, protocol: 'TCP' }] }] }));
    const changed = (await polled).json<Listed>();
    assert.ok(Date.now() - started < 5000, `answered after ${Date.now() - started} ms`);
    assert.deepEqual((changed.items[0]?.object['subsets'] as Array<{ addresses: Array<{ ip: string }> }>)[0]?.addresses, [{ ip: '10.244.0.9' }]);
    for (const bad of ['after=x', 'after=1&timeoutSeconds=-1']) assert.equal((await h.call('GET', `/api/sites/v1/objects?kind=endpoints&${bad}`, agent)).status, 400, bad);

    const report = (name: string, uid: string) => ({ cluster: CLUSTER, name, uid, type: 'Warning', reason: 'ProxyConflict', message: 'port 53/UDP is not proxied' });
    const far = await storeOf('services').get(CLUSTER, 'svc-far');
    const posted = await h.call('POST', '/api/sites/v1/services/events', { body: { items: [report('svc-here', here.metadata.uid ?? ''), report('svc-far', far.metadata.uid ?? ''), report('svc-here', 'old-uid')] }, ...agent });
    assert.equal(posted.status, 200, posted.body);
    assert.deepEqual(posted.json<{ results: Array<{ code?: number }> }>().results.map((r) => r.code ?? 200), [200, 403, 409]);
    assert.deepEqual(events.recorded.filter((e) => e.reason === 'ProxyConflict').map((e) => [e.object, e.host]), [['Service/svc-here', 'edge-a']]);
    assert.equal((await h.call('POST', '/api/sites/v1/services/events', { body: { items: [report('svc-here', here.metadata.uid ?? '')] } })).status, 401);
  });

  it('site agents heartbeat over mTLS; a site that stops goes FAILED with Nodes NotReady and pods not Ready, and comes back', async () => {
    const heartbeat = (): Promise<{ status: number; body: string }> => h.call('POST', '/api/sites/v1/heartbeat', { body: { sites: ['edge-a'] }, ...agent });
    const beat = await heartbeat();
    assert.equal(beat.status, 200, beat.body);
    assert.deepEqual(JSON.parse(beat.body), { leaseSeconds: 2 });
    assert.equal((await h.call('POST', '/api/sites/v1/heartbeat', { body: {} })).status, 401);
    // A body that is JSON but not an object is the agent's mistake (issue 20: `null` was a 500).
    for (const raw of ['null', '[]', '3', '"x"']) {
      const refused = await h.call('POST', '/api/sites/v1/heartbeat', { raw, ...agent });
      assert.deepEqual([refused.status, refused.json()['reason']], [400, 'BadRequest'], raw);
    }

    const pods = h.storage.storeFor({ group: '', resource: 'pods' });
    assert.ok(pods !== undefined);
    const created = pod('web-a', 'edge-a', 'edge-a-n0');
    pods.strategy.defaults(created);
    const scope = { cluster: CLUSTER, dryRun: false, fieldManager: 'test' };
    const live = await pods.create(scope, created);
    const watch = openWatch(`${h.url}/api/sites/v1/pods?watch=1`, h.ca, agent.cert, agent.key);
    try {
      assert.equal(await watch.status, 200);
      const added = await watch.next((l) => l.type === 'ADDED');
      assert.deepEqual([added.cluster, added.object.metadata.name], [CLUSTER, 'web-a']);
      const other = pod('web-z', 'edge-z', 'edge-z-n0');
      pods.strategy.defaults(other);
      const foreign = await pods.create(scope, other);

      const ready = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }, { type: 'ContainersReady', status: 'True' }] };
      const posted = await h.call('POST', '/api/sites/v1/pods/status', {
        ...agent,
        body: { items: [{ cluster: CLUSTER, name: 'web-a', uid: live.metadata.uid, status: ready }, { cluster: CLUSTER, name: 'web-z', uid: foreign.metadata.uid, status: ready }] },
      });
      assert.equal(posted.status, 200, posted.body);
      const results = posted.json<{ results: Array<{ name: string; code?: number }> }>().results;
      assert.deepEqual(results.map((r) => [r.name, r.code]), [['web-a', undefined], ['web-z', 403]]);
      const modified = await watch.next((l) => l.type === 'MODIFIED');
      assert.equal(readyOf(modified.object), 'True');
      await watch.next((l) => l.type === 'BOOKMARK');
      assert.ok(!watch.lines.some((l) => l.object.metadata.name === 'web-z'), 'pods of other sites are not streamed');

      // No more heartbeats: after the 2 s grace the lease and its key expire.
      await eventually(() => h.sitePlane.inventory.stateOf('edge-a'), (s) => s === 'FAILED', 'site state');
      const lost = await eventually(() => h.sitePlane.inventory.nodesOf('edge-a'), (nodes) => nodes.length === 2 && nodes.every((n) => readyOf(n) === 'Unknown'), 'Nodes');
      const condition = (lost[0]?.['status'] as { conditions: Array<Record<string, string>> }).conditions.find((c) => c['type'] === 'Ready');
      assert.deepEqual([condition?.['reason'], condition?.['message']], ['NodeStatusUnknown', 'Kubelet stopped posting node status.']);
      await eventually(() => pods.get(CLUSTER, 'web-a'), (p) => readyOf(p) === 'False', 'pod Ready');
      await eventually(() => Promise.resolve(events.recorded.filter((e) => e.reason === 'NodeNotReady')), (list) => list.length > 0, 'NodeNotReady event');
      assert.deepEqual(
        events.recorded.filter((e) => e.reason === 'NodeNotReady'),
        [{ object: 'Pod/web-a', type: 'Warning', reason: 'NodeNotReady', message: 'Node is not ready' }],
        'kube\'s MarkPodsNotReady event, on the pods of the site only',
      );
      const failed = await h.call('GET', '/api/config/namespaces/system/sites/edge-a', { token: h.adminToken });
      assert.equal(failed.json<{ status: Array<Record<string, unknown>> }>().status[0]?.['state'], 'FAILED');

      assert.equal((await heartbeat()).status, 200);
      await eventually(() => h.sitePlane.inventory.stateOf('edge-a'), (s) => s === 'ONLINE', 'site state');
      await eventually(() => h.sitePlane.inventory.nodesOf('edge-a'), (nodes) => nodes.every((n) => readyOf(n) === 'True'), 'Nodes');

      const gone = await h.call('POST', '/api/sites/v1/pods/terminated', { ...agent, body: { items: [{ cluster: CLUSTER, name: 'web-a', uid: live.metadata.uid }] } });
      assert.deepEqual(gone.json(), { results: [{ name: 'web-a' }] });
      await watch.next((l) => l.type === 'DELETED' && l.object.metadata.name === 'web-a');
    } finally {
      watch.close();
    }
  });

  it('regional-edge sites are the platform\'s, shown to every tenant with their quota; pod watches resume', async () => {
    const token = (await h.call('POST', '/api/sites/v1/tokens', { token: h.platformToken, body: { type: 'REGIONAL_EDGE' } })).json<{ token: string }>().token;
    const keys = await agentKeys();
    const site = { name: 'paris', type: 'REGIONAL_EDGE', nodes: [{ name: 'n0', cpu: '16', memory: '64Gi' }], quota: { cpu: '2', memory: '4Gi' } };
    const registered = await h.call('POST', '/api/sites/v1/register', { bearer: token, body: { agent: 're-agent', csr: keys.csr, sites: [site] } });
    assert.equal(registered.status, 200, registered.body);
    const re = { cert: registered.json<{ certificate: string }>().certificate, key: keys.key };
    const object = await h.call('GET', '/api/config/namespaces/svc-io-system/sites/paris', { token: h.adminToken });
    assert.equal(object.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels['svc.io/siteType'], 'svc-io-re');
    await eventually(() => h.sitePlane.inventory.quotaOf('paris'), (q) => q !== undefined, 'quota');
    assert.deepEqual(h.sitePlane.inventory.quotaOf('paris'), { cpuMillis: 2000, memoryBytes: 4 * 1024 ** 3 });
    const nodes = await h.call('GET', '/api/vk8s/namespaces/default/vk/api/v1/nodes', { token: h.adminToken });
    assert.deepEqual(nodes.json<{ items: KubeObject[] }>().items.map((n) => n.metadata.name), ['edge-a-n0', 'edge-a-n1', 'paris-n0']);

    const first = openWatch(`${h.url}/api/sites/v1/pods?watch=1`, h.ca, re.cert, re.key);
    const bookmark = await first.next((l) => l.type === 'BOOKMARK');
    first.close();
    const pods = h.storage.storeFor({ group: '', resource: 'pods' });
    assert.ok(pods !== undefined);
    const created = pod('web-p', 'paris', 'paris-n0');
    pods.strategy.defaults(created);
    await pods.create({ cluster: CLUSTER, dryRun: false, fieldManager: 'test' }, created);
    const resumed = openWatch(`${h.url}/api/sites/v1/pods?watch=1&resourceVersion=${bookmark.object.metadata.resourceVersion ?? ''}`, h.ca, re.cert, re.key);
    try {
      const added = await resumed.next((l) => l.type !== 'BOOKMARK');
      assert.deepEqual([added.type, added.object.metadata.name], ['ADDED', 'web-p']);
    } finally {
      resumed.close();
    }
  });

  it('site pod watch answers a resourceVersion out of its window with 410', async () => {
    const res = await h.call('GET', '/api/sites/v1/pods?watch=1&resourceVersion=1', agent);
    assert.equal(res.status, 410, res.body);
    assert.equal(res.json()['reason'], 'Expired');
  });
  it('deleting a site\'s config object decommissions it: agent record, lease, Nodes and bound pods go, and the name is free again', async () => {
    const token = (await h.call('POST', '/api/sites/v1/tokens', { token: h.adminToken, body: { type: 'CUSTOMER_EDGE' } })).json<{ token: string }>().token;
    const keys = await agentKeys();
    const register = (): Promise<{ status: number; body: string }> =>
      h.call('POST', '/api/sites/v1/register', { bearer: token, body: { agent: 'agent-d', csr: keys.csr, sites: [{ name: 'edge-d', type: 'CUSTOMER_EDGE', nodes: [{ name: 'n0', cpu: '2', memory: '4Gi' }] }] } });
    const registered = await register();
    assert.equal(registered.status, 200, registered.body);
    await eventually(() => h.sitePlane.inventory.nodesOf('edge-d').length, (n) => n === 1, 'Nodes of edge-d');
    const pods = h.storage.storeFor({ group: '', resource: 'pods' });
    assert.ok(pods !== undefined);
    const bound = pod('web-d', 'edge-d', 'edge-d-n0');
    pods.strategy.defaults(bound);
    await pods.create({ cluster: CLUSTER, dryRun: false, fieldManager: 'test' }, bound);

    const deleted = await h.call('DELETE', '/api/config/namespaces/system/sites/edge-d', { token: h.adminToken });
    assert.equal(deleted.status, 200, deleted.body);
    await eventually(() => h.store.get('/sites/sites/edge-d'), (claim) => claim === undefined, 'claim of edge-d');
    assert.deepEqual(h.sitePlane.inventory.nodesOf('edge-d'), []);
    assert.equal(await h.store.get('/sites/leases/edge-d'), undefined);
    await assert.rejects(pods.get(CLUSTER, 'web-d'), (error: Error & { reason?: string }) => error.reason === 'NotFound');
    const record = await h.store.get('/sites/agents/agent-d');
    assert.deepEqual((JSON.parse(record?.value ?? '{}') as { sites: string[] }).sites, []);
    // Registering the same name again makes the site anew.
    assert.equal((await register()).status, 200);
    assert.equal((await h.call('GET', '/api/config/namespaces/system/sites/edge-d', { token: h.adminToken })).status, 200);
    await eventually(() => h.sitePlane.inventory.nodesOf('edge-d').length, (n) => n === 1, 'Nodes of edge-d again');
  });

  it('a site registers its runtime: runc is kept for the scheduler and shown in its Nodes, a re-registration changes it, an unknown one is 422', async () => {
    const token = (await h.call('POST', '/api/sites/v1/tokens', { token: h.adminToken, body: { type: 'CUSTOMER_EDGE' } })).json<{ token: string }>().token;
    const keys = await agentKeys();
    const register = (runtime: Record<string, unknown>): Promise<{ status: number; body: string; json<T>(): T }> =>
      h.call('POST', '/api/sites/v1/register', { bearer: token, body: { agent: 'agent-r', csr: keys.csr, sites: [{ name: 'edge-r', type: 'CUSTOMER_EDGE', nodes: [{ name: 'n0', cpu: '2', memory: '4Gi' }], ...runtime }] } });
    const nodeRuntime = async (): Promise<unknown> => {
      const node = await h.call('GET', '/api/vk8s/namespaces/default/vk/api/v1/nodes/edge-r-n0', { token: h.adminToken });
      return node.status === 200 ? node.json<{ status: { nodeInfo: Record<string, unknown> } }>().status.nodeInfo['containerRuntimeVersion'] : node.status;
    };
    const refused = await register({ runtime: 'docker' });
    assert.equal(refused.status, 422, refused.body);
    assert.match(refused.json<{ message: string }>().message, /sites\[0\]\.runtime: Unsupported value: "docker": supported values: "simulated", "runc"/);
    assert.equal(h.sitePlane.inventory.runtimeOf('edge-r'), undefined, 'nothing registered');

    assert.equal((await register({ runtime: 'runc', runtimeVersion: '1.1.5' })).status, 200);
    assert.equal(h.sitePlane.inventory.runtimeOf('edge-r'), 'runc');
    await eventually(nodeRuntime, (v) => v === 'runc://1.1.5', 'the Node shows runc');

    assert.equal((await register({})).status, 200);
    assert.equal(h.sitePlane.inventory.runtimeOf('edge-r'), 'simulated');
    await eventually(nodeRuntime, (v) => v === 'simulated://1.0.0', 'the Node shows the simulator again');
    assert.equal(h.sitePlane.inventory.runtimeOf('edge-a'), 'simulated', 'a site registered without a runtime is simulated');
  });
});
