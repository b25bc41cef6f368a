import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore } from '../../registry/generic-store.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, startControllerWorld, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import { containersToKill } from './killing-events.js';
import { startPodKillingEvents } from './pod-killing-controller.js';

const pod = (name: string, nodeName?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { 'svc.io/siteName': 'a' } },
  spec: { containers: [{ name: 'app', image: 'nginx' }, { name: 'sidecar', image: 'envoy' }, { name: 'done', image: 'busybox' }], ...(nodeName === undefined ? {} : { nodeName }) },
});

const running = (object: KubeObject): KubeObject => ({
  ...object,
  status: {
    phase: 'Running',
    containerStatuses: [
      { name: 'sidecar', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } },
      { name: 'app', state: { running: { startedAt: '2026-01-01T00:00:00Z' } } },
      { name: 'done', state: { terminated: { exitCode: 0 } } },
    ],
  },
});

describe('containersToKill', () => {
  const live = running(pod('p', 'a-node-1'));
  const marked: KubeObject = { ...live, metadata: { ...live.metadata, deletionTimestamp: '2026-01-01T00:01:00Z' } };
  it('containersToKill names the running containers of a bound pod just marked for deletion, in spec order', () => {
    assert.deepEqual(containersToKill(live, marked), ['app', 'sidecar']);
  });
  it('containersToKill names nothing for an unbound pod, a pod already terminating, or one not marked', () => {
    const unbound = running(pod('p'));
    assert.deepEqual(containersToKill(unbound, { ...unbound, metadata: { ...unbound.metadata, deletionTimestamp: 'x' } }), []);
    assert.deepEqual(containersToKill(marked, marked), []);
    assert.deepEqual(containersToKill(live, live), []);
    assert.deepEqual(containersToKill(undefined, marked), []);
  });
});

describe('pod killing events over a memory store', () => {
  let world: ControllerWorld;
  let pods: GenericStore;
  let controller: { stop(): Promise<void> };

  before(async () => {
    world = await startControllerWorld();
    pods = world.storeOf({ group: '', resource: 'pods' });
    controller = startPodKillingEvents({ pods: await world.informer({ group: '', resource: 'pods' }), events: world.events });
  });
  after(async () => {
    await controller?.stop();
    await world?.stop();
  });

  const startRunning = async (name: string): Promise<void> => {
    const object = pod(name, 'a-node-1');
    pods.strategy.defaults(object);
    await pods.create(userScope(), object);
    await pods.update(userScope(), name, (current) => ({ ...current, status: running(current).status }), { subresource: 'status' });
  };

  it('pod killing events record Killing once per running container when a bound pod is deleted gracefully', async () => {
    await startRunning('web-1');
    await pods.delete(userScope(), 'web-1', { gracePeriodSeconds: 30 });
    await eventually('two Killing events', () => world.events.reasons('Pod/web-1').filter((r) => r === 'Killing').length === 2);
    // A second deletion request (shorter grace) and later status writes are no new stop.
    await pods.delete(userScope(), 'web-1', { gracePeriodSeconds: 5 });
    await pods.update(userScope(), 'web-1', (current) => ({ ...current, status: { ...(current.status as object), phase: 'Running' } }), { subresource: 'status' });
    // The informer tells changes in order: once the marker's events are in, web-1's later changes were seen.
    await startRunning('marker');
    await pods.delete(userScope(), 'marker', { gracePeriodSeconds: 30 });
    await eventually('the marker is reported', () => world.events.reasons('Pod/marker').includes('Killing'));
    const killing = world.events.recorded.filter((e) => e.object === 'Pod/web-1');
    assert.deepEqual(killing, [
      { object: 'Pod/web-1', type: 'Normal', reason: 'Killing', message: 'Stopping container app', host: 'a-node-1' },
      { object: 'Pod/web-1', type: 'Normal', reason: 'Killing', message: 'Stopping container sidecar', host: 'a-node-1' },
    ]);
  });
});
