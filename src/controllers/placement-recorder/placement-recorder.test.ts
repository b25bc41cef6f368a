import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, site, startControllerWorld, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import type { Informer } from '../runtime/object-informer.js';
import { placedMessage } from './placed-message.js';
import { RECORDED_KINDS, startPlacementRecorder, type RecordedKind } from './placement-recorder.js';

const KINDS: Record<RecordedKind, string> = { secrets: 'Secret', configmaps: 'ConfigMap', serviceaccounts: 'ServiceAccount', services: 'Service' };

describe('placedMessage', () => {
  it('placedMessage names one site, several sites, none, or counts past twenty', () => {
    assert.equal(placedMessage([]), 'placed on no site');
    assert.equal(placedMessage(['a']), 'placed on site a');
    assert.equal(placedMessage(['a', 'b']), 'placed on sites a, b');
    const many = Array.from({ length: 25 }, (_, i) => `s${String(i).padStart(2, '0')}`);
    assert.equal(placedMessage(many), `placed on 25 sites: ${many.slice(0, 20).join(', ')} and 5 more`);
  });
});

describe('placement recorder over a memory store', () => {
  let world: ControllerWorld;
  let recorder: { stop(): Promise<void> };
  const placed = (object: string): string[] => world.events.recorded.filter((e) => e.object === object && e.reason === 'Placed').map((e) => e.message);
  const create = async (resource: RecordedKind, name: string, extra: Partial<KubeObject> = {}): Promise<KubeObject> => {
    const store = world.storeOf({ group: '', resource });
    const object: KubeObject = { apiVersion: 'v1', kind: KINDS[resource], metadata: { name }, ...extra };
    if (resource === 'services') object['spec'] = { ports: [{ port: 80 }] };
    store.strategy.defaults(object);
    return store.create(userScope(), object);
  };

  before(async () => {
    world = await startControllerWorld();
    world.placement.place([site('a')]);
    await create('configmaps', 'old-config');
    const informers = {} as Record<RecordedKind, Informer>;
    for (const kind of RECORDED_KINDS) informers[kind] = await world.informer({ group: '', resource: kind });
    recorder = startPlacementRecorder({ informers, placement: world.placement, events: world.events, logger: world.logger });
  });
  after(async () => {
    await recorder?.stop();
    await world?.stop();
  });

  it('placement recorder announces where each new Secret, ConfigMap, ServiceAccount and Service is placed', async () => {
    await create('secrets', 'token', { data: { k: 'dg==' } });
    await create('configmaps', 'settings', { data: { k: 'v' } });
    await create('serviceaccounts', 'robot');
    await create('services', 'web');
    for (const object of ['Secret/token', 'ConfigMap/settings', 'ServiceAccount/robot', 'Service/web']) {
      await eventually(`${object} announced`, () => placed(object).length === 1);
      assert.deepEqual(placed(object), ['placed on site a']);
    }
  });

  it('placement recorder announces a change of sites once, and nothing for an unchanged placement', async () => {
    await world.storeOf({ group: '', resource: 'configmaps' }).update(userScope(), 'settings', (c) => ({ ...c, data: { k: 'v2' } }));
    world.placement.placeObject('settings', [site('b'), site('a')]);
    await eventually('the new sites announced', () => placed('ConfigMap/settings').length === 2);
    world.placement.placeObject('settings', [site('a'), site('b')]);
    world.placement.placeObject('settings', []);
    await eventually('no site announced', () => placed('ConfigMap/settings').length === 3);
    assert.deepEqual(placed('ConfigMap/settings'), ['placed on site a', 'placed on sites a, b', 'placed on no site']);
  });

  it('placement recorder takes objects present at its start as announced, and announces their later moves', async () => {
    assert.deepEqual(placed('ConfigMap/old-config'), []);
    world.placement.placeObject('old-config', [site('c')]);
    await eventually('the move announced', () => placed('ConfigMap/old-config').length === 1);
    assert.deepEqual(placed('ConfigMap/old-config'), ['placed on site c']);
  });
});
