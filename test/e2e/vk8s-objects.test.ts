import assert from 'node:assert/strict';
import { request as httpsRequestRaw } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';

const BASE = '/api/vk8s/namespaces/default/vk1';
const CM = `${BASE}/api/v1/namespaces/default/configmaps`;
const DEPLOY = `${BASE}/apis/apps/v1/namespaces/default/deployments`;

interface Status {
  kind: string;
  reason: string;
  message: string;
  code: number;
  details?: Record<string, unknown>;
}
interface Obj {
  metadata: { name: string; resourceVersion: string; uid: string; generation?: number; labels?: Record<string, string>; deletionTimestamp?: string; finalizers?: string[] };
  data?: Record<string, string>;
  spec?: Record<string, unknown>;
}

const deployment = (name: string, image = 'nginx:1.17'): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: { replicas: 2, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image, env: [{ name: 'A', value: '1' }] }] } } },
});

/** Reads watch lines until `count` events arrived (or the stream ends). */
function watchEvents(h: ConfigHarness, path: string, count: number): Promise<Array<{ type: string; object: Obj & Status }>> {
  return new Promise((resolve, reject) => {
    const events: Array<{ type: string; object: Obj & Status }> = [];
    const req = httpsRequestRaw(`${h.url}${path}`, { ca: h.ca, headers: { authorization: `APIToken ${h.adminToken}` } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffer.slice(0, newline)) as { type: string; object: Obj & Status });
          buffer = buffer.slice(newline + 1);
          if (events.length === count) {
            req.destroy();
            resolve(events);
          }
        }
      });
      res.on('end', () => resolve(events));
    });
    req.on('error', (error) => (events.length === count ? undefined : reject(error)));
    req.end();
  });
}

describe('virtual cluster objects over HTTPS', () => {
  let h: ConfigHarness;
  before(async () => {
    h = await startConfigHarness({ bookmarkIntervalMs: 200 });
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
  });
  after(async () => {
    await h?.close();
  });

  it('creates without a Content-Type, reads, lists with selectors, and answers NotFound like kube', async () => {
    const created = await h.call('POST', CM, { raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { tier: 'a' } }, data: { k: 'v' } }), headers: { 'content-type': '' } });
    assert.equal(created.status, 201, created.body);
    const object = created.json<Obj>();
    assert.match(object.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(object.metadata.resourceVersion, /^\d+$/);
    assert.equal((await h.call('GET', `${CM}/c1`)).json<Obj>().data?.k, 'v');
    await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c2', labels: { tier: 'b' } } } });
    const list = (await h.call('GET', `${CM}?labelSelector=tier%3Da`)).json<{ kind: string; items: Obj[]; metadata: { resourceVersion: string } }>();
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(list.items.map((i) => i.metadata.name), ['c1']);
    const missing = await h.call('GET', `${CM}/nope`);
    assert.equal(missing.status, 404);
    assert.deepEqual(missing.json<Status>().message, 'configmaps "nope" not found');
    const dup = await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' } } });
    assert.equal(dup.status, 409);
    assert.equal(dup.json<Status>().reason, 'AlreadyExists');
  });

  it('pages lists with limit and continue', async () => {
    for (const n of ['p1', 'p2', 'p3']) await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: n, labels: { page: 'yes' } } } });
    const first = (await h.call('GET', `${CM}?labelSelector=page&limit=2`)).json<{ items: Obj[]; metadata: { continue?: string } }>();
    assert.deepEqual(first.items.map((i) => i.metadata.name), ['p1', 'p2']);
    assert.ok(first.metadata.continue);
    const second = (await h.call('GET', `${CM}?labelSelector=page&limit=2&continue=${encodeURIComponent(first.metadata.continue)}`)).json<{ items: Obj[]; metadata: { continue?: string } }>();
    assert.deepEqual(second.items.map((i) => i.metadata.name), ['p3']);
    assert.equal(second.metadata.continue, undefined);
    // Once the snapshot the token reads at is compacted away, the token has expired.
    await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p4', labels: { page: 'yes' } } } });
    await h.controlPlane.store.compact(await h.controlPlane.store.currentRevision());
    const expired = await h.call('GET', `${CM}?labelSelector=page&limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
    assert.equal(expired.status, 410);
    assert.equal(expired.json<Status>().reason, 'Expired');
    assert.match(expired.json<Status>().message, /^The provided continue parameter is too old/);
  });

  it('rejects a stale resourceVersion with kube\'s Conflict message', async () => {
    const current = (await h.call('GET', `${CM}/c1`)).json<Obj>();
    assert.equal((await h.call('PUT', `${CM}/c1`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', resourceVersion: current.metadata.resourceVersion }, data: { k: 'v2' } } })).status, 200);
    const stale = await h.call('PUT', `${CM}/c1`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', resourceVersion: current.metadata.resourceVersion }, data: { k: 'v3' } } });
    assert.equal(stale.status, 409);
    assert.equal(stale.json<Status>().message, 'Operation cannot be fulfilled on configmaps "c1": the object has been modified; please apply your changes to the latest version and try again');
  });

  it('patches with merge, strategic merge (containers merged by name) and json patch; other types are 415', async () => {
    assert.equal((await h.call('POST', DEPLOY, { body: deployment('web') })).status, 201);
    const merged = await h.call('PATCH', `${DEPLOY}/web`, { body: { metadata: { labels: { extra: 'x' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(merged.status, 200, merged.body);
    assert.equal(merged.json<Obj>().metadata.labels?.extra, 'x');
    const smp = await h.call('PATCH', `${DEPLOY}/web`, {
      body: { spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    assert.equal(smp.status, 200, smp.body);
    const containers = (smp.json<Obj>().spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers;
    assert.deepEqual(containers.map((c) => c.name).sort(), ['side', 'web']);
    assert.equal(smp.json<Obj>().metadata.generation, 2);
    const json = await h.call('PATCH', `${DEPLOY}/web`, { body: [{ op: 'replace', path: '/spec/replicas', value: 5 }], headers: { 'content-type': 'application/json-patch+json' } });
    assert.equal((json.json<Obj>().spec as { replicas: number }).replicas, 5);
    const bad = await h.call('PATCH', `${DEPLOY}/web`, { body: {}, headers: { 'content-type': 'text/plain' } });
    assert.equal(bad.status, 415);
    assert.equal(bad.json<Status>().reason, 'UnsupportedMediaType');
  });

  it('scales through the autoscaling/v1 Scale subresource', async () => {
    const scale = await h.call('PATCH', `${DEPLOY}/web/scale`, { body: { spec: { replicas: 3 } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(scale.status, 200, scale.body);
    const body = scale.json<{ kind: string; apiVersion: string; spec: { replicas: number } }>();
    assert.deepEqual([body.kind, body.apiVersion, body.spec.replicas], ['Scale', 'autoscaling/v1', 3]);
    assert.equal(((await h.call('GET', `${DEPLOY}/web`)).json<Obj>().spec as { replicas: number }).replicas, 3);
  });

  it('never persists a dry run', async () => {
    const dry = await h.call('POST', `${CM}?dryRun=All`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dry' } } });
    assert.equal(dry.status, 201, dry.body);
    assert.equal((await h.call('GET', `${CM}/dry`)).status, 404);
    const dryDelete = await h.call('DELETE', `${CM}/c2?dryRun=All`);
    assert.equal(dryDelete.status, 200);
    assert.equal((await h.call('GET', `${CM}/c2`)).status, 200);
  });

  it('answers 403 for another namespace and 405 for operations the seed does not list', async () => {
    const other = await h.call('GET', `${BASE}/api/v1/namespaces/kube-system/configmaps`);
    assert.equal(other.status, 403);
    assert.match(other.json<Status>().message, /in the namespace "kube-system"/);
    const podCreate = await h.call('POST', `${BASE}/api/v1/namespaces/default/pods`, { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } } });
    assert.equal(podCreate.status, 405);
    assert.equal(podCreate.json<Status>().reason, 'MethodNotAllowed');
    const ns = await h.call('GET', `${BASE}/api/v1/namespaces/default`);
    assert.equal(ns.json<{ status: { phase: string } }>().status.phase, 'Active');
  });

  it('deletes with a Status, and keeps objects with finalizers until they are removed', async () => {
    const gone = await h.call('DELETE', `${CM}/c2`, { body: { propagationPolicy: 'Background' } });
    assert.equal(gone.status, 200);
    assert.deepEqual([gone.json<Status>().kind, gone.json<{ status: string }>().status], ['Status', 'Success']);
    await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fin', finalizers: ['example.com/hold'] } } });
    const marked = await h.call('DELETE', `${CM}/fin`);
    assert.ok(marked.json<Obj>().metadata.deletionTimestamp);
    assert.equal((await h.call('GET', `${CM}/fin`)).status, 200);
    const released = await h.call('PATCH', `${CM}/fin`, { body: { metadata: { finalizers: null } }, headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(released.status, 200, released.body);
    assert.equal((await h.call('GET', `${CM}/fin`)).status, 404);
  });

  it('watches: synthetic ADDED, then changes, a bookmark, and 410 for a resourceVersion before the window', async () => {
    const list = (await h.call('GET', CM)).json<{ metadata: { resourceVersion: string }; items: Obj[] }>();
    const initial = watchEvents(h, `${CM}?watch=true&labelSelector=page`, 3);
    const changes = watchEvents(h, `${CM}?watch=true&resourceVersion=${list.metadata.resourceVersion}&allowWatchBookmarks=true`, 3);
    await new Promise((r) => setTimeout(r, 100));
    await h.call('POST', CM, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' } } });
    await h.call('DELETE', `${CM}/w1`);
    const seen = await changes;
    assert.deepEqual(seen.map((e) => e.type), ['ADDED', 'DELETED', 'BOOKMARK']);
    assert.equal(seen[0]?.object.metadata.name, 'w1');
    assert.deepEqual((await initial).map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED p1', 'ADDED p2', 'ADDED p3']);
    const metrics = (await h.call('GET', '/metrics')).body;
    assert.match(metrics, /^edgeplane_watch_events_total\{group="",resource="configmaps"\} [1-9]\d*$/m, 'the watch cache counts what it sent');
    assert.match(metrics, /^edgeplane_watch_cache_fanout_pass_duration_seconds_count\{group="",resource="configmaps"\} [1-9]\d*$/m);
    const expired = await watchEvents(h, `${CM}?watch=true&resourceVersion=1`, 1);
    assert.equal(expired[0]?.type, 'ERROR');
    assert.deepEqual([expired[0]?.object.code, expired[0]?.object.reason], [410, 'Expired']);
    const namespaces = await watchEvents(h, `${BASE}/api/v1/namespaces?watch=true&timeoutSeconds=5`, 1);
    assert.deepEqual(namespaces.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED default'], 'the cluster\'s one namespace');
  });

  it('keeps tenants apart: the same cluster name in another tenant is another cluster; monitors cannot write', async () => {
    const tenant = await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'globex' } });
    assert.equal(tenant.status, 200, tenant.body);
    const globex = tenant.json<{ admin_token: string }>().admin_token;
    assert.equal((await h.call('GET', `${CM}/c1`, { token: globex })).status, 404, 'no cluster of that name in globex yet');
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { token: globex, body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const theirs = watchEvents(h, `${CM}?watch=true&timeoutSeconds=1`, 100);
    assert.deepEqual((await h.call('GET', CM, { token: globex })).json<{ items: Obj[] }>().items, []);
    assert.equal((await h.call('GET', `${CM}/c1`, { token: globex })).status, 404);
    assert.equal((await h.call('POST', CM, { token: globex, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'globex-only' } } })).status, 201);
    const acmeSaw = (await theirs).map((e) => e.object.metadata.name);
    assert.ok(!acmeSaw.includes('globex-only'), `acme's watch saw ${acmeSaw.join(', ')}`);
    const monitor = await h.call('POST', '/api/web/namespaces/system/api_credentials', { body: { name: 'watcher', expiration_days: 1, spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: 'default', role: 'monitor' }] } } });
    assert.equal(monitor.status, 200, monitor.body);
    const token = monitor.json<{ data: string }>().data;
    assert.equal((await h.call('GET', CM, { token })).status, 200);
    const write = await h.call('POST', CM, { token, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'nope' } } });
    assert.equal(write.status, 403);
    assert.match(write.json<Status>().message, /cannot create resource "configmaps"/);
  });

  it('deleting the virtual_k8s object deletes its API and its objects; a new one starts empty', async () => {
    assert.equal((await h.call('GET', `${CM}/c1`)).status, 200);
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 's1' }, spec: { clusterIP: '10.96.7.7', ports: [{ port: 80 }] } };
    assert.equal((await h.call('POST', `${BASE}/api/v1/namespaces/default/services`, { body: svc })).status, 201);
    assert.equal((await h.call('DELETE', '/api/config/namespaces/default/virtual_k8ss/vk1')).status, 200);
    assert.equal((await h.call('GET', `${CM}/c1`)).status, 404);
    const keys = async (): Promise<number> => (await h.controlPlane.store.list('/vk8s/core/configmaps/acme/default/vk1/')).items.length;
    for (let i = 0; i < 50 && (await keys()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await keys(), 0);
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    assert.deepEqual((await h.call('GET', CM)).json<{ items: Obj[] }>().items, []);
    const again = await h.call('POST', `${BASE}/api/v1/namespaces/default/services`, { body: svc });
    assert.equal(again.status, 201, `the old cluster's ClusterIP reservation is gone too: ${again.body}`);
  });
});
