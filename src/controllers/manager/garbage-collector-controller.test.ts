import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { GenericStore } from '../../registry/generic-store.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import type { ControllerManager } from './controller-manager.js';
import type { ControllerStarter } from './controller-context.js';
import { garbageCollectorController } from './garbage-collector-controller.js';

describe('garbage collector as a controller of the manager', () => {
  let h: ControllerWorld;
  let manager: ControllerManager;
  let configMaps: GenericStore;
  const registry = new Registry();
  const controllers = (): ControllerStarter[] => [garbageCollectorController({ metrics: registry })];

  before(async () => {
    h = await startControllerWorld();
    manager = await h.startManager({ controllers });
    configMaps = h.storeOf({ group: '', resource: 'configmaps' });
  });
  after(() => h.stop());

  const orphanIsCollected = async (name: string): Promise<void> => {
    const owner: KubeObject = await configMaps.create(h.scope, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-owner` } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: `${name}-owner`, uid: owner.metadata.uid ?? '' };
    await configMaps.create(h.scope, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-dependent`, ownerReferences: [ref] } });
    await configMaps.delete(h.scope, `${name}-owner`, {});
    await eventually('the dependent is collected', async () => !(await h.list(configMaps)).some((c) => c.metadata.name === `${name}-dependent`));
  };

  it('garbage collector runs in the leader, and again in the next leader with its metrics registered anew', async () => {
    await eventually('the manager leads', () => manager.isLeader);
    await orphanIsCollected('first');
    assert.match(await registry.metrics(), /edgeplane_vk8s_garbage_collector_actions_total\{action="delete"\} 1/);
    await manager.stop();
    const next = await h.startManager({ controllers, identity: 'replica-b' });
    await eventually('the next manager leads', () => next.isLeader);
    await orphanIsCollected('second');
    assert.match(await registry.metrics(), /edgeplane_vk8s_garbage_collector_actions_total\{action="delete"\} 1/, 'the counters start over with the new term');
  });
});
