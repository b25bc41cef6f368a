import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  ListWatch,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type KubernetesObject,
  type V1ConfigMap,
  type V1Deployment,
  type V1Status,
} from '@kubernetes/client-node';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { eventually } from '../../src/store/testing/watch-helpers.js';

const NS = 'default';
/** Each resource's watch cache keeps this many events: small, so a stale watch gets 410 Expired cheaply. */
const WATCH_HISTORY = 5;

/** The Status of the ApiException `call` fails with (client-node 1.x puts the raw Status JSON in `.body`). */
async function apiError(call: Promise<unknown>): Promise<{ code: number; status: V1Status }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    assert.equal(typeof error.body, 'string');
    return { code: error.code, status: JSON.parse(error.body as string) as V1Status };
  }
  return assert.fail('expected an ApiException');
}

const deployment = (name: string, image = 'nginx:1.17'): V1Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image, env: [{ name: 'A', value: '1' }] }] } },
  },
});

const configMap = (name: string, labels: Record<string, string>, data: Record<string, string> = {}): V1ConfigMap => ({ metadata: { name, labels }, data });

const names = (items: readonly KubernetesObject[]): string[] => items.map((i) => i.metadata?.name ?? '').sort();

describe('@kubernetes/client-node 1.4.0 against a virtual cluster over HTTPS', () => {
  let h: ConfigHarness;
  const kc = new KubeConfig();
  let apps: AppsV1Api;
  let core: CoreV1Api;
  let batch: BatchV1Api;

  before(async () => {
    h = await startConfigHarness({ bookmarkIntervalMs: 200, watchHistory: WATCH_HISTORY });
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const credential = await h.call('POST', '/api/web/namespaces/system/api_credentials', {
      body: { name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } },
    });
    assert.equal(credential.status, 200, credential.body);
    kc.loadFromString(Buffer.from(credential.json<{ data: string }>().data, 'base64').toString());
    apps = kc.makeApiClient(AppsV1Api);
    core = kc.makeApiClient(CoreV1Api);
    batch = kc.makeApiClient(BatchV1Api);
  });
  after(async () => {
    await h?.close();
  });

  it('AppsV1Api creates, reads, replaces (with and without a resourceVersion) and deletes deployments', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: NS, body: deployment('web') });
    assert.equal(created.metadata?.generation, 1);
    assert.equal(created.spec?.strategy?.type, 'RollingUpdate');
    const read = await apps.readNamespacedDeployment({ name: 'web', namespace: NS });
    assert.equal(read.metadata?.uid, created.metadata?.uid);

    const replaced = await apps.replaceNamespacedDeployment({ name: 'web', namespace: NS, body: { ...read, spec: { ...read.spec!, replicas: 3 } } });
    assert.equal(replaced.spec?.replicas, 3);
    assert.equal(replaced.metadata?.generation, 2);
    // The stale resourceVersion of `read`: 409 with kube's Conflict Status.
    const stale = await apiError(apps.replaceNamespacedDeployment({ name: 'web', namespace: NS, body: { ...read, spec: { ...read.spec!, replicas: 4 } } }));
    assert.equal(stale.code, 409);
    assert.equal(stale.status.kind, 'Status');
    assert.equal(stale.status.reason, 'Conflict');
    assert.equal(stale.status.message, 'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again');
    assert.deepEqual(stale.status.details, { name: 'web', group: 'apps', kind: 'deployments' });
    // Without a resourceVersion, deployments allow an unconditional update.
    const unconditional = await apps.replaceNamespacedDeployment({ name: 'web', namespace: NS, body: deployment('web', 'nginx:1.19') });
    assert.equal(unconditional.spec?.template.spec?.containers[0]?.image, 'nginx:1.19');
    assert.equal(unconditional.metadata?.generation, 3);

    await apps.deleteNamespacedDeployment({ name: 'web', namespace: NS });
    const gone = await apiError(apps.readNamespacedDeployment({ name: 'web', namespace: NS }));
    assert.equal(gone.code, 404);
    assert.equal(gone.status.message, 'deployments.apps "web" not found');
  });

  it('CoreV1Api round-trips configmaps, secrets (stringData folded into data) and services (a clusterIP allocated)', async () => {
    await core.createNamespacedConfigMap({ namespace: NS, body: configMap('settings', {}, { mode: 'fast' }) });
    const cm = await core.replaceNamespacedConfigMap({ name: 'settings', namespace: NS, body: configMap('settings', {}, { mode: 'slow' }) });
    assert.deepEqual(cm.data, { mode: 'slow' });

    const secret = await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 'creds' }, stringData: { password: 'hunter2' } } });
    assert.equal(secret.type, 'Opaque');
    assert.equal(secret.stringData, undefined);
    assert.equal(Buffer.from(secret.data?.['password'] ?? '', 'base64').toString(), 'hunter2');
    assert.equal((await core.readNamespacedSecret({ name: 'creds', namespace: NS })).data?.['password'], secret.data?.['password']);

    const svc = await core.createNamespacedService({ namespace: NS, body: { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } } });
    assert.match(svc.spec?.clusterIP ?? '', /^\d+\.\d+\.\d+\.\d+$/);
    assert.equal(svc.spec?.type, 'ClusterIP');
    assert.deepEqual(JSON.parse(JSON.stringify(svc.spec?.ports)), [{ port: 80, protocol: 'TCP', targetPort: 80 }]);
    const kept = await core.replaceNamespacedService({ name: 'web', namespace: NS, body: { ...svc, spec: { ...svc.spec, ports: [{ port: 8080 }] } } });
    assert.equal(kept.spec?.clusterIP, svc.spec?.clusterIP);

    await core.deleteNamespacedService({ name: 'web', namespace: NS });
    await core.deleteNamespacedSecret({ name: 'creds', namespace: NS });
    await core.deleteNamespacedConfigMap({ name: 'settings', namespace: NS });
    assert.equal((await apiError(core.readNamespacedService({ name: 'web', namespace: NS }))).code, 404);
  });

  it('BatchV1Api creates jobs; batch/v1beta1 cronjobs (no BatchV1beta1Api in 1.4.0) go through KubernetesObjectApi', async () => {
    const job = await batch.createNamespacedJob({
      namespace: NS,
      body: { metadata: { name: 'once' }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
    });
    assert.equal(job.spec?.backoffLimit, 6);
    assert.equal(job.spec?.template.metadata?.labels?.['job-name'], 'once');
    assert.ok(job.spec?.selector?.matchLabels?.['controller-uid']);
    assert.deepEqual(names((await batch.listNamespacedJob({ namespace: NS })).items), ['once']);
    await batch.deleteNamespacedJob({ name: 'once', namespace: NS, propagationPolicy: 'Background' });

    const objects = KubernetesObjectApi.makeApiClient(kc);
    const cron = {
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: { name: 'nightly', namespace: NS },
      spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } } },
    };
    const created = (await objects.create(cron)) as KubernetesObject & { spec?: { concurrencyPolicy?: string } };
    assert.equal(created.spec?.concurrencyPolicy, 'Allow');
    const listed = await objects.list('batch/v1beta1', 'CronJob', NS);
    assert.deepEqual(names(listed.items), ['nightly']);
    const patched = (await objects.patch({ ...cron, spec: { suspend: true } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch)) as KubernetesObject & { spec?: { suspend?: boolean } };
    assert.equal(patched.spec?.suspend, true);
    // Background: 1.17 orphans a CronJob's Jobs by default, which leaves the `orphan`
    // finalizer for a garbage collector to remove.
    await objects.delete(cron, undefined, undefined, undefined, undefined, 'Background');
    assert.equal((await apiError(objects.read(cron))).code, 404);
  });

  it('lists filter by label and field selectors and page with limit and continue; deleteCollection removes the selection', async () => {
    for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) await core.createNamespacedConfigMap({ namespace: NS, body: configMap(n, { set: 'page', odd: String(Number(n[1]) % 2) }) });
    await core.createNamespacedConfigMap({ namespace: NS, body: configMap('other', { set: 'other' }) });

    assert.deepEqual(names((await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'set=page,odd=1' })).items), ['p1', 'p3', 'p5']);
    assert.deepEqual(names((await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'set in (page,other),odd!=1' })).items), ['other', 'p2', 'p4']);
    assert.deepEqual(names((await core.listNamespacedConfigMap({ namespace: NS, fieldSelector: 'metadata.name=p2' })).items), ['p2']);
    const badField = await apiError(core.listNamespacedConfigMap({ namespace: NS, fieldSelector: 'data.k=v' }));
    assert.equal(badField.code, 400);
    assert.equal(badField.status.reason, 'BadRequest');

    const pages: string[][] = [];
    let token: string | undefined;
    do {
      const page = await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'set=page', limit: 2, ...(token === undefined ? {} : { _continue: token }) });
      pages.push(page.items.map((i) => i.metadata?.name ?? ''));
      token = page.metadata?._continue;
      // kube 1.17 counts the remaining items only for lists without selectors.
      assert.equal(page.metadata?.remainingItemCount, undefined);
    } while (token !== undefined);
    assert.deepEqual(pages, [['p1', 'p2'], ['p3', 'p4'], ['p5']]);

    // 1.17 answers with the list of deleted objects (client-node types it as a V1Status).
    const deleted = await core.deleteCollectionNamespacedConfigMap({ namespace: NS, labelSelector: 'set=page' });
    assert.equal(deleted.kind, 'ConfigMapList');
    assert.deepEqual(names((await core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'set' })).items), ['other']);
    await core.deleteNamespacedConfigMap({ name: 'other', namespace: NS });
  });

  it('errors surface as ApiException with the code and the Status (reason, details, causes) in the body', async () => {
    const missing = await apiError(core.readNamespacedConfigMap({ name: 'nope', namespace: NS }));
    assert.equal(missing.code, 404);
    assert.deepEqual(missing.status, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404 });

    await core.createNamespacedConfigMap({ namespace: NS, body: configMap('twice', {}) });
    const exists = await apiError(core.createNamespacedConfigMap({ namespace: NS, body: configMap('twice', {}) }));
    assert.equal(exists.code, 409);
    assert.equal(exists.status.reason, 'AlreadyExists');
    assert.equal(exists.status.message, 'configmaps "twice" already exists');
    await core.deleteNamespacedConfigMap({ name: 'twice', namespace: NS });

    const invalid = await apiError(core.createNamespacedConfigMap({ namespace: NS, body: configMap('Bad_Name', {}) }));
    assert.equal(invalid.code, 422);
    assert.equal(invalid.status.reason, 'Invalid');
    assert.equal(invalid.status.details?.causes?.[0]?.field, 'metadata.name');
    assert.match(invalid.status.message ?? '', /^ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a DNS-1123 subdomain must consist of/);

    // A virtual cluster has one namespace: the others are forbidden.
    const otherNamespace = await apiError(core.createNamespacedConfigMap({ namespace: 'elsewhere', body: configMap('x', {}) }));
    assert.equal(otherNamespace.code, 403);
    assert.equal(otherNamespace.status.reason, 'Forbidden');
    assert.match(otherNamespace.status.message ?? '', /cannot create resource "configmaps" in API group "" in the namespace "elsewhere"/);
  });

  it('patches with the default json-patch, merge-patch, strategic-merge-patch and server-side apply (fieldManager, force)', async () => {
    await apps.createNamespacedDeployment({ namespace: NS, body: deployment('patched') });
    const target = { name: 'patched', namespace: NS };

    const json = await apps.patchNamespacedDeployment({ ...target, body: [{ op: 'replace', path: '/spec/replicas', value: 3 }, { op: 'add', path: '/metadata/labels/tier', value: 'front' }] });
    assert.equal(json.spec?.replicas, 3);
    assert.equal(json.metadata?.labels?.['tier'], 'front');
    const failedTest = await apiError(apps.patchNamespacedDeployment({ ...target, body: [{ op: 'test', path: '/spec/replicas', value: 9 }] }));
    assert.equal(failedTest.code, 422);

    const smp = await apps.patchNamespacedDeployment(
      { ...target, body: { spec: { template: { spec: { containers: [{ name: 'side', image: 'busybox' }] } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(smp.spec?.template.spec?.containers.map((c) => c.name).sort(), ['side', 'web']);

    // A JSON merge patch replaces lists whole.
    const merge = await apps.patchNamespacedDeployment(
      { ...target, body: { metadata: { labels: { tier: null } }, spec: { template: { spec: { containers: [{ name: 'only', image: 'redis' }] } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    assert.deepEqual(merge.spec?.template.spec?.containers.map((c) => c.name), ['only']);
    assert.equal(merge.metadata?.labels?.['tier'], undefined);

    // Server-side apply: creates, records the manager, and refuses another manager's change without force.
    const apply = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);
    const applied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: NS }, data: { owner: 'alice' } };
    const createdByApply = await core.patchNamespacedConfigMap({ name: 'applied', namespace: NS, body: applied, fieldManager: 'alice' }, apply);
    assert.deepEqual(createdByApply.data, { owner: 'alice' });
    assert.deepEqual(createdByApply.metadata?.managedFields?.map((m) => [m.manager, m.operation]), [['alice', 'Apply']]);
    const conflict = await apiError(core.patchNamespacedConfigMap({ name: 'applied', namespace: NS, body: { ...applied, data: { owner: 'bob' } }, fieldManager: 'bob' }, apply));
    assert.equal(conflict.code, 409);
    assert.equal(conflict.status.reason, 'Conflict');
    assert.deepEqual(conflict.status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.owner' }]);
    const forced = await core.patchNamespacedConfigMap({ name: 'applied', namespace: NS, body: { ...applied, data: { owner: 'bob' } }, fieldManager: 'bob', force: true }, apply);
    assert.deepEqual(forced.data, { owner: 'bob' });
    // alice owned nothing else, so her entry goes.
    assert.deepEqual(forced.metadata?.managedFields?.map((m) => [m.manager, m.operation]), [['bob', 'Apply']]);
    const noManager = await apiError(core.patchNamespacedConfigMap({ name: 'applied', namespace: NS, body: applied }, apply));
    assert.equal(noManager.code, 422);

    await apps.deleteNamespacedDeployment(target);
    await core.deleteNamespacedConfigMap({ name: 'applied', namespace: NS });
  });

  it('an informer lists, follows adds, updates and deletes, and relists after 410 Expired to the right set', async () => {
    const PATH = `/api/v1/namespaces/${NS}/configmaps`;
    const SELECTOR = 'informed=yes';
    const cm = (name: string, data: Record<string, string> = {}): V1ConfigMap => configMap(name, { informed: 'yes' }, data);
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('i1') });
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('i2') });
    let lists = 0;
    const informer = makeInformer<V1ConfigMap>(kc, PATH, () => (lists++, core.listNamespacedConfigMap({ namespace: NS, labelSelector: SELECTOR })), SELECTOR);
    const seen: string[] = [];
    const errors: unknown[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${o.data?.['v'] ?? ''}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.on('error', (e) => errors.push(e));
    const cached = (): string[] => names(informer.list(NS));
    const serverSide = async (): Promise<string[]> => names((await core.listNamespacedConfigMap({ namespace: NS, labelSelector: SELECTOR })).items);
    try {
      await informer.start();
      assert.deepEqual(cached(), ['i1', 'i2']);
      await core.createNamespacedConfigMap({ namespace: NS, body: cm('i3') });
      await core.replaceNamespacedConfigMap({ name: 'i1', namespace: NS, body: cm('i1', { v: '2' }) });
      await core.deleteNamespacedConfigMap({ name: 'i2', namespace: NS });
      await core.createNamespacedConfigMap({ namespace: NS, body: configMap('not-informed', {}) });
      await eventually(() => seen.length === 5, 'the watch events');
      assert.deepEqual(seen, ['add i1', 'add i2', 'add i3', 'update i1 2', 'delete i2']);
      assert.deepEqual(cached(), ['i1', 'i3']);
      assert.equal(lists, 1);

      // 410: the informer keeps its resourceVersion across stop()/start() (what a client does
      // after a dropped connection, as client-node's README suggests, restarting on 'error').
      // While it is stopped, more than WATCH_HISTORY configmap writes happen, so its
      // resourceVersion falls out of the watch cache's window: restarted, it watches from it,
      // gets an ERROR event with code 410, and must relist. Nothing here depends on timing:
      // the writes finish before start(), and the window is counted in events, not time.
      await informer.stop();
      await eventually(() => errors.length === 1, 'the aborted watch to report');
      seen.length = 0;
      for (let i = 4; i < 4 + WATCH_HISTORY; i++) await core.createNamespacedConfigMap({ namespace: NS, body: cm(`i${i}`) });
      await core.deleteNamespacedConfigMap({ name: 'i3', namespace: NS });
      await core.replaceNamespacedConfigMap({ name: 'i1', namespace: NS, body: cm('i1', { v: '3' }) });
      assert.ok(informer instanceof ListWatch);
      const stale = informer.latestResourceVersion();
      const expired = await watchOnce(kc, PATH, { resourceVersion: stale });
      assert.deepEqual(expired.map((e) => [e.type, (e.object as V1Status).code, (e.object as V1Status).reason]), [['ERROR', 410, 'Expired']]);

      await informer.start();
      const expected = await serverSide();
      assert.deepEqual(expected, ['i1', 'i4', 'i5', 'i6', 'i7', 'i8']);
      await eventually(() => cached().join() === expected.join(), 'the informer to relist');
      assert.equal(lists, 2);
      assert.equal(errors.length, 1);
      assert.deepEqual(seen.sort(), ['add i4', 'add i5', 'add i6', 'add i7', 'add i8', 'delete i3', 'update i1 3']);
      // And it keeps following changes after the relist.
      await core.deleteNamespacedConfigMap({ name: 'i4', namespace: NS });
      await eventually(() => !cached().includes('i4'), 'the delete after the relist');
    } finally {
      await informer.stop();
    }
    await core.deleteCollectionNamespacedConfigMap({ namespace: NS });
  });

  it('an informer whose watch the server ends (timeoutSeconds) watches again from its resourceVersion without relisting', async () => {
    // makeInformer sends no timeoutSeconds; client-node's Watch keeps a query in the path.
    const PATH = `/api/v1/namespaces/${NS}/configmaps?timeoutSeconds=1`;
    let lists = 0;
    let connects = 0;
    const informer = makeInformer<V1ConfigMap>(kc, PATH, () => (lists++, core.listNamespacedConfigMap({ namespace: NS, labelSelector: 'resumed' })), 'resumed');
    informer.on('connect', () => connects++);
    try {
      await informer.start();
      await core.createNamespacedConfigMap({ namespace: NS, body: configMap('r1', { resumed: 'yes' }) });
      await eventually(() => connects === 2, 'the watch to end and start again', 5000);
      await core.createNamespacedConfigMap({ namespace: NS, body: configMap('r2', { resumed: 'yes' }) });
      await eventually(() => names(informer.list(NS)).join() === 'r1,r2', 'the event after the new watch');
      assert.equal(lists, 1);
    } finally {
      await informer.stop();
    }
    await core.deleteCollectionNamespacedConfigMap({ namespace: NS, labelSelector: 'resumed' });
  });

  it('Watch streams ADDED, MODIFIED, DELETED and BOOKMARK events with allowWatchBookmarks', async () => {
    const PATH = `/api/v1/namespaces/${NS}/configmaps`;
    const from = (await core.listNamespacedConfigMap({ namespace: NS })).metadata?.resourceVersion ?? '';
    const events: Array<{ type: string; name: string | undefined; rv: string | undefined }> = [];
    let ended = false;
    const controller = await new Watch(kc).watch(
      PATH,
      { resourceVersion: from, allowWatchBookmarks: true, labelSelector: 'watched' },
      (type, object: KubernetesObject) => events.push({ type, name: object.metadata?.name, rv: object.metadata?.resourceVersion }),
      () => (ended = true),
    );
    try {
      await core.createNamespacedConfigMap({ namespace: NS, body: configMap('w1', { watched: 'yes' }) });
      await core.createNamespacedConfigMap({ namespace: NS, body: configMap('unwatched', {}) });
      await core.replaceNamespacedConfigMap({ name: 'w1', namespace: NS, body: configMap('w1', { watched: 'yes' }, { k: 'v' }) });
      await core.deleteNamespacedConfigMap({ name: 'w1', namespace: NS });
      const afterDelete = (): number => events.findIndex((e) => e.type === 'DELETED');
      await eventually(() => afterDelete() >= 0 && events.slice(afterDelete()).some((e) => e.type === 'BOOKMARK'), 'a bookmark after the events');
      const objects = events.filter((e) => e.type !== 'BOOKMARK');
      assert.deepEqual(objects.map((e) => [e.type, e.name]), [['ADDED', 'w1'], ['MODIFIED', 'w1'], ['DELETED', 'w1']]);
      const bookmark = events.slice(afterDelete()).find((e) => e.type === 'BOOKMARK');
      assert.equal(bookmark?.name, undefined);
      assert.ok(Number(bookmark?.rv) >= Number(objects[2]?.rv), 'a bookmark covers the events before it');
      assert.equal(ended, false);
    } finally {
      controller.abort();
    }
    await core.deleteNamespacedConfigMap({ name: 'unwatched', namespace: NS });
  });
});

/** One watch's events until the server ends it (or five seconds pass). */
async function watchOnce(kc: KubeConfig, path: string, query: Record<string, string>): Promise<Array<{ type: string; object: unknown }>> {
  const events: Array<{ type: string; object: unknown }> = [];
  let done: (error: unknown) => void = () => undefined;
  const ended = new Promise<unknown>((resolve) => (done = resolve));
  const controller = await new Watch(kc).watch(path, query, (type, object: unknown) => events.push({ type, object }), (error: unknown) => done(error));
  const timer = setTimeout(() => controller.abort(), 5000);
  assert.equal(await ended, null);
  clearTimeout(timer);
  return events;
}
