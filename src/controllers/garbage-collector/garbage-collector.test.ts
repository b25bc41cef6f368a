import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import { createLogger } from '../../observability/logger.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { PropagationPolicy } from '../../registry/strategy.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { systemClock } from '../../common/clock.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';
import { startGarbageCollector, type GarbageCollector } from './garbage-collector.js';

const vk1: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
const vk2: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk2' };
const user = (cluster: ClusterRef): RequestScope => ({ cluster, dryRun: false, fieldManager: 'test' });

/** Polls `check` until it holds (the collector works asynchronously). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('garbage collector over a memory store', () => {
  let store: Store;
  let storage: VirtualClusterStorage;
  let gc: GarbageCollector;
  let configMaps: GenericStore;
  let secrets: GenericStore;
  const metrics = new Registry();

  const ownerRef = (owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference => ({
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...extra,
  });
  const configMap = (name: string, owners: OwnerReference[] = [], cluster = vk1, finalizers?: string[]): Promise<KubeObject> =>
    configMaps.create(user(cluster), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners, ...(finalizers === undefined ? {} : { finalizers }) } });
  const secret = (name: string, owners: OwnerReference[]): Promise<KubeObject> => secrets.create(user(vk1), { apiVersion: 'v1', kind: 'Secret', metadata: { name, ownerReferences: owners }, type: 'Opaque' });
  const exists = async (s: GenericStore, name: string, cluster = vk1): Promise<KubeObject | undefined> => {
    try {
      return await s.get(cluster, name);
    } catch {
      return undefined;
    }
  };
  const release = (name: string): Promise<KubeObject> => configMaps.update(user(vk1), name, (current) => ({ ...current, metadata: { ...current.metadata, finalizers: [] } }), { retryOnConflict: true });
  const remove = (name: string, policy?: PropagationPolicy): Promise<unknown> => configMaps.delete(user(vk1), name, policy === undefined ? {} : { propagationPolicy: policy });

  before(async () => {
    store = openMemoryStore();
    storage = new VirtualClusterStorage({ store, clock: systemClock() });
    configMaps = storage.storeFor({ group: '', resource: 'configmaps' }) as GenericStore;
    secrets = storage.storeFor({ group: '', resource: 'secrets' }) as GenericStore;
    await storage.start();
    // Left from before the collector ran: a dependent whose owner never existed.
    await configMap('stale', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never', uid: 'no-such-uid' }]);
    gc = startGarbageCollector({ storage, logger: createLogger({ level: 'silent' }), metrics, foregroundRecheckMs: 200 });
  });
  after(async () => {
    await gc?.stop();
    storage?.stop();
    await store?.close();
  });

  it('garbage collector deletes, at start, dependents whose owners never existed', async () => {
    await eventually('the stale dependent is gone', async () => (await exists(configMaps, 'stale')) === undefined);
  });

  it('garbage collector deletes the dependents of an owner deleted in the background, of every kind', async () => {
    const owner = await configMap('bg-owner');
    await configMap('bg-a', [ownerRef(owner)]);
    await secret('bg-b', [ownerRef(owner)]);
    const other = await configMap('bg-other');
    await configMap('bg-shared', [ownerRef(owner), ownerRef(other)]);
    await remove('bg-owner');
    await eventually('the dependents are gone', async () => (await exists(configMaps, 'bg-a')) === undefined && (await exists(secrets, 'bg-b')) === undefined);
    await eventually('the shared dependent loses only the gone owner', async () => (await exists(configMaps, 'bg-shared'))?.metadata.ownerReferences?.length === 1);
    assert.deepEqual((await exists(configMaps, 'bg-shared'))?.metadata.ownerReferences?.map((r) => r.name), ['bg-other']);
  });

  it('garbage collector deletes a dependent whose owner was replaced by another object of the same name', async () => {
    const first = await configMap('same-name');
    await remove('same-name', 'Orphan');
    await eventually('the first owner is gone', async () => (await exists(configMaps, 'same-name')) === undefined);
    await configMap('same-name');
    await configMap('stale-ref', [ownerRef(first)]);
    await eventually('the dependent of the old uid is gone', async () => (await exists(configMaps, 'stale-ref')) === undefined);
    assert.ok(await exists(configMaps, 'same-name'), 'the new object of that name stays');
  });

  it('garbage collector orphans dependents, then removes the orphan finalizer so the owner goes', async () => {
    const owner = await configMap('or-owner');
    await configMap('or-a', [ownerRef(owner, { controller: true, blockOwnerDeletion: true })]);
    const keeper = await configMap('or-keeper');
    await configMap('or-b', [ownerRef(owner), ownerRef(keeper)]);
    await remove('or-owner', 'Orphan');
    await eventually('the owner is gone', async () => (await exists(configMaps, 'or-owner')) === undefined);
    assert.equal((await exists(configMaps, 'or-a'))?.metadata.ownerReferences, undefined);
    assert.deepEqual((await exists(configMaps, 'or-b'))?.metadata.ownerReferences?.map((r) => r.name), ['or-keeper']);
  });

  it('garbage collector holds an owner deleted in the foreground until its blocking dependents are gone', async () => {
    const owner = await configMap('fg-owner');
    await configMap('fg-a', [ownerRef(owner, { blockOwnerDeletion: true })]);
    await configMap('fg-held', [ownerRef(owner, { blockOwnerDeletion: true })], vk1, ['example.com/hold']);
    await configMap('fg-loose', [ownerRef(owner)]);
    await remove('fg-owner', 'Foreground');
    await eventually('the dependents are deleted', async () => (await exists(configMaps, 'fg-a')) === undefined && (await exists(configMaps, 'fg-loose')) === undefined);
    await eventually('the held dependent is marked for deletion', async () => (await exists(configMaps, 'fg-held'))?.metadata.deletionTimestamp !== undefined);
    const waiting = await exists(configMaps, 'fg-owner');
    assert.ok(waiting?.metadata.deletionTimestamp);
    assert.deepEqual(waiting?.metadata.finalizers, ['foregroundDeletion'], 'a dependent being deleted still blocks');
    await release('fg-held');
    await eventually('the owner goes once its dependents are gone', async () => (await exists(configMaps, 'fg-owner')) === undefined);
  });

  it('garbage collector deletes grandchildren first in a foreground deletion', async () => {
    const owner = await configMap('gf-owner');
    const child = await configMap('gf-child', [ownerRef(owner, { blockOwnerDeletion: true })]);
    await configMap('gf-grandchild', [ownerRef(child, { blockOwnerDeletion: true })], vk1, ['example.com/hold']);
    await eventually('the graph knows the grandchild', () => Promise.resolve(gc.graph.dependentsOf(`acme/default/vk1/${child.metadata.uid ?? ''}`).length === 1));
    await remove('gf-owner', 'Foreground');
    await eventually('the child waits for the grandchild', async () => (await exists(configMaps, 'gf-child'))?.metadata.finalizers?.includes('foregroundDeletion') === true);
    await eventually('the grandchild is marked for deletion', async () => (await exists(configMaps, 'gf-grandchild'))?.metadata.deletionTimestamp !== undefined);
    assert.ok((await exists(configMaps, 'gf-owner'))?.metadata.deletionTimestamp);
    await release('gf-grandchild');
    await eventually('all three are gone', async () => (await exists(configMaps, 'gf-owner')) === undefined && (await exists(configMaps, 'gf-child')) === undefined);
  });

  it('garbage collector keeps references to kinds it does not store and owners in other clusters apart', async () => {
    const foreign = await configMap('fo-owner', [], vk2);
    await configMap('fo-dependent', [ownerRef(foreign)]);
    await configMap('fo-unknown', [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'widget-uid' }]);
    await configMap('fo-odd-name', [{ apiVersion: 'v1', kind: 'Secret', name: 'no such name', uid: 'odd-uid' }]);
    await eventually('the dependent naming an owner of another cluster is gone', async () => (await exists(configMaps, 'fo-dependent')) === undefined);
    await eventually('the dependent naming an owner no key can hold is gone', async () => (await exists(configMaps, 'fo-odd-name')) === undefined);
    assert.ok(await exists(configMaps, 'fo-owner', vk2));
    assert.ok(await exists(configMaps, 'fo-unknown'), 'an owner of an unknown kind keeps its dependent');
  });

  it('garbage collector counts its actions in the metrics registry', async () => {
    const text = await metrics.metrics();
    assert.match(text, /edgeplane_vk8s_garbage_collector_actions_total\{action="delete"\} [1-9]/);
    assert.match(text, /edgeplane_vk8s_garbage_collector_actions_total\{action="orphan_dependent"\} [1-9]/);
    assert.match(text, /edgeplane_vk8s_garbage_collector_graph_objects [1-9]/);
  });
});
