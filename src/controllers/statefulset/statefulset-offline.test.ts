import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore } from '../../registry/generic-store.js';
import type { ObjectInformer } from '../runtime/object-informer.js';
import { eventually, labelOnlyTemplateFor, site, startControllerWorld, testCluster, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import { startStatefulSetController } from './statefulset-controller.js';

describe('statefulset controller with an offline site', () => {
  let world: ControllerWorld;
  let pods: ObjectInformer;
  let sets: GenericStore;
  let controller: { stop(): Promise<void> };
  const offline = new Set<string>();
  const live = (): string[] => pods.list(testCluster).filter((p) => p.metadata.deletionTimestamp === undefined).map((p) => p.metadata.name ?? '').sort();

  before(async () => {
    world = await startControllerWorld();
    sets = world.storeOf({ group: 'apps', resource: 'statefulsets' });
    const statefulSets = await world.informer({ group: 'apps', resource: 'statefulsets' });
    pods = await world.informer({ group: '', resource: 'pods' });
    const claims = await world.informer({ group: '', resource: 'persistentvolumeclaims' });
    world.placement.place([site('a'), site('b')]);
    controller = startStatefulSetController({
      informers: { statefulSets, pods, persistentVolumeClaims: claims },
      storage: world.storage,
      placement: world.placement,
      podTemplateFor: labelOnlyTemplateFor,
      events: world.events,
      clock: world.clock,
      logger: world.logger,
      siteOffline: (name) => offline.has(name),
    });
    const object: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db' },
      spec: { replicas: 2, podManagementPolicy: 'Parallel', serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    };
    sets.strategy.defaults(object);
    await sets.create(userScope(), object);
  });
  after(async () => {
    await controller?.stop();
    await world?.stop();
  });

  it('a scale-down deletes no pod of an offline site until it returns', async () => {
    await eventually('two pods per site', () => live().length === 4);
    offline.add('b');
    await sets.update(userScope(), 'db', (current) => ({ ...current, spec: { ...(current.spec as object), replicas: 1 } }), { retryOnConflict: true });
    await eventually('db-a-1 deleted', () => !live().includes('db-a-1'));
    assert.deepEqual(live(), ['db-a-0', 'db-b-0', 'db-b-1'], 'the offline site keeps its pods');
    offline.delete('b');
    // The site's agent reports again: the set looks again.
    await world.setPodStatus('db-b-1', { phase: 'Running', ready: true });
    await eventually('db-b-1 deleted once b is back', () => !live().includes('db-b-1'));
  });
});
