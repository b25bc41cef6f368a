import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore } from '../../registry/generic-store.js';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, site, startControllerWorld, testCluster, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import type { ObjectInformer } from '../runtime/object-informer.js';
import type { ClaimStatusView } from './claim-binding.js';
import { provisionedVolume } from './provisioned-volume.js';
import { startVolumeBinderController } from './volume-binder-controller.js';

const claim = (name: string, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
});

describe('volume binder over a memory store', () => {
  let world: ControllerWorld;
  let claims: ObjectInformer;
  let volumes: ObjectInformer;
  let store: GenericStore;
  let controller: { stop(): Promise<void> };
  const phase = (name: string): string | undefined => (claims.get(testCluster, name)?.status as ClaimStatusView | undefined)?.phase;
  const create = async (object: KubeObject): Promise<KubeObject> => {
    store.strategy.defaults(object);
    return store.create(userScope(), object);
  };

  before(async () => {
    world = await startControllerWorld();
    store = world.storeOf({ group: '', resource: 'persistentvolumeclaims' });
    claims = await world.informer({ group: '', resource: 'persistentvolumeclaims' });
    volumes = await world.informer({ group: '', resource: 'persistentvolumes' });
    controller = startVolumeBinderController({ informers: { persistentVolumeClaims: claims, persistentVolumes: volumes }, storage: world.storage, placement: world.placement, events: world.events, logger: world.logger });
  });
  after(async () => {
    await controller?.stop();
    await world?.stop();
  });

  it('volume binder binds a claim made for a site with its request as capacity', async () => {
    const made = await create(claim('www-web-a-0', { 'svc.io/siteName': 'a' }));
    await eventually('the claim is Bound', () => phase('www-web-a-0') === 'Bound');
    const bound = claims.get(testCluster, 'www-web-a-0') as KubeObject;
    assert.deepEqual(bound.status, { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '2Gi' } });
    assert.equal((bound.spec as { volumeName?: string }).volumeName, `pvc-${made.metadata.uid ?? ''}`);
    assert.equal(bound.metadata.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
    assert.ok(world.events.recorded.some((e) => e.reason === 'ProvisioningSucceeded' && e.message === `Successfully provisioned volume pvc-${made.metadata.uid ?? ''} on site a`));
  });

  it('volume binder leaves a user claim placed nowhere Pending, and binds it once placed, listing its sites', async () => {
    await create(claim('data'));
    await eventually('a FailedBinding event', () => world.events.recorded.some((e) => e.object === 'PersistentVolumeClaim/data' && e.reason === 'FailedBinding'));
    assert.equal(phase('data'), 'Pending');
    world.placement.placeObject('data', [site('b'), site('a')]);
    await eventually('the claim is Bound', () => phase('data') === 'Bound');
    const breakdown = JSON.parse(claims.get(testCluster, 'data')?.metadata.annotations?.[SITE_STATUS_ANNOTATION] ?? '{}') as Record<string, { phase: string }>;
    assert.deepEqual(Object.keys(breakdown), ['a', 'b']);
    world.placement.placeObject('data', [site('c')]);
    await eventually('the breakdown follows placement', () => Object.keys(JSON.parse(claims.get(testCluster, 'data')?.metadata.annotations?.[SITE_STATUS_ANNOTATION] ?? '{}') as object).join() === 'c');
    assert.equal(phase('data'), 'Bound');
  });

  it('volume binder provisions a Bound PersistentVolume for a claim, deletes it with the claim, and a claim made again gets a new one', async () => {
    const made = await create({ ...claim('cache', { 'svc.io/siteName': 'a' }), spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'local', resources: { requests: { storage: '1Gi' } } } });
    const name = `pvc-${made.metadata.uid ?? ''}`;
    await eventually('the volume is Bound', () => (volumes.get(testCluster, name)?.status as { phase?: string } | undefined)?.phase === 'Bound');
    const volume = volumes.get(testCluster, name) as KubeObject;
    const spec = volume.spec as Record<string, unknown>;
    assert.deepEqual(spec['claimRef'], { kind: 'PersistentVolumeClaim', namespace: testCluster.namespace, name: 'cache', uid: made.metadata.uid, apiVersion: 'v1', resourceVersion: made.metadata.resourceVersion });
    assert.deepEqual(spec['capacity'], { storage: '1Gi' });
    assert.equal(spec['storageClassName'], 'local');
    assert.equal(spec['persistentVolumeReclaimPolicy'], 'Delete');
    assert.deepEqual(spec['nodeAffinity'], { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/siteName', operator: 'In', values: ['a'] }] }] } });
    assert.equal(volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'edgeplane.io/site-local');
    await eventually('the claim is Bound to it', () => phase('cache') === 'Bound');

    await store.delete(userScope(), 'cache', {});
    await eventually('the volume is deleted with its claim', () => volumes.get(testCluster, name) === undefined);
    const again = await create(claim('cache', { 'svc.io/siteName': 'a' }));
    await eventually('a new volume for the new claim', () => (volumes.get(testCluster, `pvc-${again.metadata.uid ?? ''}`)?.status as { phase?: string } | undefined)?.phase === 'Bound');
    assert.equal(volumes.get(testCluster, name), undefined);
  });

  it('volume reclaimer deletes a provisioned volume whose claim vanished while the controller was away, and keeps the others', async () => {
    const kept = await create(claim('kept', { 'svc.io/siteName': 'a' }));
    await eventually('kept is Bound', () => phase('kept') === 'Bound');
    await controller.stop();
    const gone = await create(claim('gone', { 'svc.io/siteName': 'a' }));
    const volumeStore = world.storeOf({ group: '', resource: 'persistentvolumes' });
    const orphan = provisionedVolume(gone, `pvc-${gone.metadata.uid ?? ''}`, ['a']);
    volumeStore.strategy.defaults(orphan);
    await volumeStore.create(userScope(), orphan);
    await store.delete(userScope(), 'gone', {});
    controller = startVolumeBinderController({ informers: { persistentVolumeClaims: claims, persistentVolumes: volumes }, storage: world.storage, placement: world.placement, events: world.events, logger: world.logger });
    await eventually('the orphaned volume is deleted', () => volumes.get(testCluster, `pvc-${gone.metadata.uid ?? ''}`) === undefined);
    assert.equal((volumes.get(testCluster, `pvc-${kept.metadata.uid ?? ''}`)?.status as { phase?: string } | undefined)?.phase, 'Bound');
  });
});
