import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore } from '../../registry/generic-store.js';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, labelOnlyTemplateFor, site, startControllerWorld, testCluster, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import type { ObjectInformer } from '../runtime/object-informer.js';
import { startStatefulSetController } from './statefulset-controller.js';

const statefulSet = (image: string): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name: 'web' },
  spec: {
    replicas: 2,
    serviceName: 'web',
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } },
    volumeClaimTemplates: [{ metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
  },
});

describe('statefulset controller over a memory store', () => {
  let world: ControllerWorld;
  let pods: ObjectInformer;
  let claims: ObjectInformer;
  let sets: GenericStore;
  let controller: { stop(): Promise<void> };
  const podNames = (): string[] => pods.list(testCluster).map((p) => p.metadata.name ?? '').sort();
  const pod = (name: string): KubeObject | undefined => pods.get(testCluster, name);
  const readyAll = async (): Promise<void> => {
    for (const p of pods.list(testCluster)) if (p.metadata.deletionTimestamp === undefined) await world.setPodStatus(p.metadata.name ?? '', { phase: 'Running', ready: true });
  };
  const status = async (): Promise<Record<string, unknown>> => (await sets.get(testCluster, 'web')).status as Record<string, unknown>;

  before(async () => {
    world = await startControllerWorld();
    sets = world.storeOf({ group: 'apps', resource: 'statefulsets' });
    const statefulSets = await world.informer({ group: 'apps', resource: 'statefulsets' });
    pods = await world.informer({ group: '', resource: 'pods' });
    claims = await world.informer({ group: '', resource: 'persistentvolumeclaims' });
    world.placement.place([site('a'), site('b')]);
    controller = startStatefulSetController({
      informers: { statefulSets, pods, persistentVolumeClaims: claims },
      storage: world.storage,
      placement: world.placement,
      podTemplateFor: labelOnlyTemplateFor,
      events: world.events,
      clock: world.clock,
      logger: world.logger,
    });
    const object = statefulSet('nginx:1');
    sets.strategy.defaults(object);
    await sets.create(userScope(), object);
  });
  after(async () => {
    await controller?.stop();
    await world?.stop();
  });

  it('statefulset controller creates ordinal 0 on every site first, with its claim and identity', async () => {
    await eventually('web-a-0 and web-b-0 exist', () => pod('web-a-0') !== undefined && pod('web-b-0') !== undefined);
    assert.deepEqual(podNames(), ['web-a-0', 'web-b-0'], 'ordinal 1 waits for ordinal 0 to be Running and Ready');
    const first = pod('web-a-0') as KubeObject;
    const spec = first.spec as { hostname?: string; subdomain?: string; volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> };
    assert.equal(spec.hostname, 'web-0');
    assert.equal(spec.subdomain, 'web');
    assert.deepEqual(spec.volumes?.find((v) => v.name === 'www')?.persistentVolumeClaim, { claimName: 'www-web-a-0' });
    assert.equal(first.metadata.labels?.['statefulset.kubernetes.io/pod-name'], 'web-a-0');
    assert.equal(first.metadata.labels?.['svc.io/siteName'], 'a');
    assert.match(first.metadata.labels?.['controller-revision-hash'] ?? '', /^web-/);
    assert.equal(first.metadata.ownerReferences?.[0]?.kind, 'StatefulSet');
    const claim = claims.get(testCluster, 'www-web-a-0');
    assert.equal(claim?.metadata.labels?.['svc.io/siteName'], 'a');
    assert.equal(claim?.metadata.labels?.app, 'web');
    assert.ok(world.events.recorded.some((e) => e.reason === 'SuccessfulCreate' && e.message === 'create Pod web-a-0 in StatefulSet web successful'));
    assert.ok(world.events.recorded.some((e) => e.message === 'create Claim www-web-a-0 Pod web-a-0 in StatefulSet web success'));
  });

  it('statefulset controller creates the next ordinal on a site once the previous is Running and Ready', async () => {
    await world.setPodStatus('web-a-0', { phase: 'Running', ready: true });
    await eventually('web-a-1 exists', () => pod('web-a-1') !== undefined);
    assert.equal(pod('web-b-1'), undefined, 'site b still waits');
    await readyAll();
    await eventually('web-b-1 exists', () => pod('web-b-1') !== undefined);
    await readyAll();
    await eventually('the status sums both sites', async () => (await status()).readyReplicas === 4);
    const s = await status();
    assert.equal(s.replicas, 4);
    assert.equal(s.observedGeneration, 1);
    assert.equal(s.currentRevision, s.updateRevision);
    const breakdown = JSON.parse((await sets.get(testCluster, 'web')).metadata.annotations?.[SITE_STATUS_ANNOTATION] ?? '{}') as Record<string, { readyReplicas: number }>;
    assert.deepEqual(Object.keys(breakdown), ['a', 'b']);
    assert.equal(breakdown.a?.readyReplicas, 2);
  });

  it('statefulset controller rolls a new template out from the highest ordinal and completes the revision', async () => {
    const before = (await status()).currentRevision;
    await sets.update(userScope(), 'web', (current) => {
      const next = statefulSet('nginx:2');
      sets.strategy.defaults(next);
      return { ...current, spec: next.spec };
    }, { retryOnConflict: true });
    await eventually('web-a-1 runs the new revision', () => pod('web-a-1')?.metadata.labels?.['controller-revision-hash'] !== before && pod('web-a-1') !== undefined);
    assert.equal(pod('web-a-0')?.metadata.labels?.['controller-revision-hash'], before, 'ordinal 0 waits for ordinal 1');
    const midway = await status();
    assert.equal(midway.observedGeneration, 1, 'observedGeneration waits for every site');
    for (let i = 0; i < 40 && (await status()).currentRevision === before; i++) {
      await readyAll();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const done = await status();
    assert.notEqual(done.currentRevision, before);
    assert.equal(done.currentRevision, done.updateRevision);
    assert.equal(done.updatedReplicas, 4);
    assert.equal(done.observedGeneration, 2);
    assert.ok(world.events.recorded.some((e) => e.reason === 'SuccessfulDelete' && e.message === 'delete Pod web-b-1 in StatefulSet web successful'));
  });

  it('statefulset controller scales down from the highest ordinal and keeps the claims', async () => {
    await sets.update(userScope(), 'web', (current) => ({ ...current, spec: { ...(current.spec as object), replicas: 1 } }), { retryOnConflict: true });
    await eventually('ordinal 1 is gone on both sites', () => pod('web-a-1') === undefined && pod('web-b-1') === undefined);
    assert.ok(claims.get(testCluster, 'www-web-a-1'), 'the claim of a removed pod stays');
    await eventually('status counts one pod per site', async () => (await status()).replicas === 2);
  });

  it('statefulset controller removes the pods of a site the StatefulSet left', async () => {
    world.placement.place([site('a')]);
    await eventually('site b has no pods', () => podNames().every((n) => !n.startsWith('web-b-')));
    assert.deepEqual(podNames(), ['web-a-0']);
    await eventually('the breakdown drops site b', async () => !((await sets.get(testCluster, 'web')).metadata.annotations?.[SITE_STATUS_ANNOTATION] ?? '').includes('"b"'));
  });
});
