import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../observability/logger.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { systemClock } from '../../common/clock.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { ObjectInformer, type InformerEvent } from './object-informer.js';
import { formatObjectKey, parseQueueKey } from './object-key.js';

const vk1: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
const vk2: ClusterRef = { tenant: 'beta', namespace: 'default', name: 'vk1' };
const scope = (cluster: ClusterRef): RequestScope => ({ cluster, dryRun: false, fieldManager: 'test' });

async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('object informer over a memory store', () => {
  let store: Store;
  let storage: VirtualClusterStorage;
  let configMaps: GenericStore;
  const controller = new AbortController();
  const events: InformerEvent[] = [];
  let informer: ObjectInformer;

  before(async () => {
    store = openMemoryStore();
    storage = new VirtualClusterStorage({ store, clock: systemClock() });
    configMaps = storage.storeFor({ group: '', resource: 'configmaps' }) as GenericStore;
    await storage.start();
    await configMaps.create(scope(vk1), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
    await eventually('the cache has the first object', () => configMaps.cache.list().items.length === 1);
    informer = new ObjectInformer(configMaps, createLogger({ level: 'silent' }));
    informer.onEvent((event) => events.push(event));
    await informer.start(controller.signal);
  });

  after(async () => {
    controller.abort();
    storage.stop();
    await store.close();
  });

  it('object informer tells an added for what existed before it started', () => {
    assert.deepEqual(
      events.map((e) => [e.type, e.key.name]),
      [['added', 'before']],
    );
    assert.equal(informer.get(vk1, 'before')?.metadata.name, 'before');
  });

  it('object informer keeps clusters apart and follows updates and deletes', async () => {
    const owner = await configMaps.create(scope(vk1), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const uid = owner.metadata.uid ?? '';
    await configMaps.create(scope(vk2), {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'dependent', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid }] },
    });
    await eventually('both arrive', () => informer.list().length === 3);
    assert.deepEqual(informer.list(vk1).map((o) => o.metadata.name).sort(), ['before', 'owner']);
    const keysOf = (name: string) => informer.keys().find((k) => k.name === name);
    assert.equal(keysOf('before')?.cluster, keysOf('owner')?.cluster, 'the keys of one cluster share its ClusterRef');
    assert.deepEqual(keysOf('dependent')?.cluster, vk2);
    assert.deepEqual(informer.list(vk2).map((o) => o.metadata.name), ['dependent']);
    assert.equal(informer.get(vk2, 'owner'), undefined);
    assert.deepEqual(informer.dependentsOf(uid).map((o) => o.metadata.name), ['dependent']);

    await configMaps.update(scope(vk2), 'dependent', (current) => ({ ...current, metadata: { ...current.metadata, ownerReferences: [] } }));
    await eventually('the update arrives', () => informer.dependentsOf(uid).length === 0);
    const updated = events.find((e) => e.type === 'updated' && e.key.name === 'dependent');
    assert.ok(updated !== undefined && updated.type === 'updated' && updated.old.metadata.ownerReferences?.length === 1);

    await configMaps.delete(scope(vk1), 'before', {});
    await eventually('the delete arrives', () => informer.get(vk1, 'before') === undefined);
    assert.equal(events.at(-1)?.type, 'deleted');
    assert.deepEqual(informer.list(vk1).map((o) => o.metadata.name), ['owner']);
  });

  it('a metadata-only informer keeps only type and metadata, and follows changes', async () => {
    const partial = new ObjectInformer(configMaps, createLogger({ level: 'silent' }), { metadataOnly: true });
    const seen: InformerEvent[] = [];
    partial.onEvent((event) => seen.push(event));
    const local = new AbortController();
    await partial.start(local.signal);
    try {
      await configMaps.create(scope(vk1), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'data', labels: { app: 'a' } }, data: { big: 'x'.repeat(100) } });
      await eventually('the object arrives', () => partial.get(vk1, 'data') !== undefined);
      const kept = partial.get(vk1, 'data');
      assert.deepEqual(Object.keys(kept ?? {}).sort(), ['apiVersion', 'kind', 'metadata']);
      assert.equal(kept?.kind, 'ConfigMap');
      assert.deepEqual(kept?.metadata.labels, { app: 'a' });
      assert.equal(kept?.metadata.managedFields, undefined);

      await configMaps.update(scope(vk1), 'data', (current) => ({ ...current, metadata: { ...current.metadata, labels: { app: 'b' } } }));
      await eventually('the update arrives', () => partial.get(vk1, 'data')?.metadata.labels?.['app'] === 'b');
      const updated = seen.find((e) => e.type === 'updated' && e.key.name === 'data');
      assert.ok(updated?.type === 'updated' && updated.old.metadata.labels?.['app'] === 'a' && !('data' in updated.object));
    } finally {
      local.abort();
    }
  });

  it('object keys round-trip through their queue form and reject anything else', () => {
    const key = { cluster: vk1, name: 'web' };
    assert.deepEqual(parseQueueKey(formatObjectKey(key)), key);
    assert.equal(parseQueueKey('acme/default/vk1'), undefined);
    assert.equal(parseQueueKey('acme//vk1/web'), undefined);
  });
});
