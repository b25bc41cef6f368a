import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore } from '../../registry/generic-store.js';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, labelOnlyTemplateFor, site, startControllerWorld, testCluster, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import { fakeControllerTime } from '../testing/fake-controller-time.js';
import type { ObjectInformer } from '../runtime/object-informer.js';
import type { JobStatusView } from './job-status.js';
import { startJobController } from './job-controller.js';

const job = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } }, ...spec },
});

describe('job controller over a memory store', () => {
  const time = fakeControllerTime(new Date('2024-01-01T00:00:00Z'));
  const { clock, timers } = time;
  let world: ControllerWorld;
  let pods: ObjectInformer;
  let jobs: GenericStore;
  let controller: { stop(): Promise<void> };
  const podsOf = (name: string, siteName?: string): KubeObject[] =>
    pods.list(testCluster).filter((p) => p.metadata.labels?.['job-name'] === name && (siteName === undefined || p.metadata.labels['svc.io/siteName'] === siteName));
  const active = (name: string, siteName?: string): KubeObject[] => podsOf(name, siteName).filter((p) => !['Succeeded', 'Failed'].includes((p.status as { phase?: string }).phase ?? ''));
  const finish = async (pod: KubeObject, phase: 'Succeeded' | 'Failed'): Promise<void> => {
    await world.setPodStatus(pod.metadata.name ?? '', { phase });
  };
  const statusOf = async (name: string): Promise<JobStatusView> => ((await jobs.get(testCluster, name)).status ?? {}) as JobStatusView;
  const create = async (object: KubeObject): Promise<void> => {
    jobs.strategy.defaults(object);
    await jobs.create(userScope(), object);
  };

  before(async () => {
    world = await startControllerWorld({ clock });
    jobs = world.storeOf({ group: 'batch', resource: 'jobs' });
    const jobInformer = await world.informer({ group: 'batch', resource: 'jobs' });
    pods = await world.informer({ group: '', resource: 'pods' });
    world.placement.place([site('a'), site('b', 'CUSTOMER_EDGE')]);
    controller = startJobController({
      informers: { jobs: jobInformer, pods },
      storage: world.storage,
      placement: world.placement,
      podTemplateFor: labelOnlyTemplateFor,
      events: world.events,
      clock,
      logger: world.logger,
      queue: time.queue,
    });
  });
  after(async () => {
    await controller?.stop();
    await world?.stop();
  });

  it('job controller runs the completions on every site and completes when every site did', async () => {
    await create(job('count', { completions: 2, parallelism: 1 }));
    await eventually('one pod per site', () => active('count', 'a').length === 1 && active('count', 'b').length === 1);
    const first = active('count', 'a')[0] as KubeObject;
    assert.match(first.metadata.name ?? '', /^count-[a-z0-9]{5}$/);
    assert.ok(first.metadata.labels?.['controller-uid']);
    assert.equal(first.metadata.ownerReferences?.[0]?.kind, 'Job');
    await finish(first, 'Succeeded');
    await eventually('site a starts its second completion', () => active('count', 'a').length === 1 && podsOf('count', 'a').length === 2);
    for (const pod of [...active('count', 'a'), ...active('count', 'b')]) await finish(pod, 'Succeeded');
    await eventually('site b starts its second completion', () => podsOf('count', 'b').length === 2 && active('count', 'b').length === 1);
    await eventually('the status counts three succeeded and one active', async () => {
      const status = await statusOf('count');
      return status.succeeded === 3 && status.active === 1;
    });
    assert.equal((await statusOf('count')).conditions, undefined, 'not complete while site b runs');
    for (const pod of active('count', 'b')) await finish(pod, 'Succeeded');
    await eventually('the job completes', async () => (await statusOf('count')).conditions?.some((c) => c.type === 'Complete') === true);
    const done = await statusOf('count');
    assert.equal(done.succeeded, 4);
    assert.equal(done.completionTime, '2024-01-01T00:00:00Z');
    assert.equal(done.startTime, '2024-01-01T00:00:00Z');
    const breakdown = JSON.parse((await jobs.get(testCluster, 'count')).metadata.annotations?.[SITE_STATUS_ANNOTATION] ?? '{}') as Record<string, { condition?: string }>;
    assert.deepEqual([breakdown.a?.condition, breakdown.b?.condition], ['Complete', 'Complete']);
    assert.ok(world.events.recorded.some((e) => e.object === 'Job/count' && e.reason === 'Completed' && e.message === 'Job completed'));
    assert.ok(world.events.recorded.some((e) => e.object === 'Job/count' && e.reason === 'SuccessfulCreate' && e.message === `Created pod: ${first.metadata.name ?? ''}`));
  });

  it('job controller fails a site past its backoffLimit and the Job once every site finished', async () => {
    await create(job('flaky', { backoffLimit: 1 }));
    await eventually('one pod per site', () => active('flaky', 'a').length === 1 && active('flaky', 'b').length === 1);
    await finish(active('flaky', 'a')[0] as KubeObject, 'Failed');
    await eventually('site a retries', () => active('flaky', 'a').length === 1 && podsOf('flaky', 'a').length === 2);
    await finish(active('flaky', 'a')[0] as KubeObject, 'Failed');
    await eventually('site a gives up', () => world.events.recorded.some((e) => e.object === 'Job/flaky' && e.reason === 'BackoffLimitExceeded'));
    assert.equal(active('flaky', 'a').length, 0);
    assert.equal((await statusOf('flaky')).conditions, undefined, 'site b still runs');
    await finish(active('flaky', 'b')[0] as KubeObject, 'Succeeded');
    await eventually('the job fails', async () => (await statusOf('flaky')).conditions?.some((c) => c.type === 'Failed') === true);
    const status = await statusOf('flaky');
    assert.equal(status.conditions?.[0]?.reason, 'BackoffLimitExceeded');
    assert.equal(status.failed, 2);
    assert.equal(status.succeeded, 1);
  });

  it('job controller fails every site at activeDeadlineSeconds, woken by its timer', async () => {
    await create(job('slow', { activeDeadlineSeconds: 30, parallelism: 2, completions: 2 }));
    await eventually('two pods per site', () => active('slow').length === 4);
    await eventually('a deadline timer is set', () => timers.pending().includes(30_000));
    assert.ok(timers.advance(30_000) > 0);
    await eventually('the job fails past its deadline', async () => (await statusOf('slow')).conditions?.some((c) => c.reason === 'DeadlineExceeded') === true);
    await eventually('its active pods are deleted', () => active('slow').length === 0);
    assert.equal((await statusOf('slow')).failed, 4);
    assert.ok(world.events.recorded.some((e) => e.object === 'Job/slow' && e.reason === 'DeadlineExceeded' && e.message === 'Job was active longer than specified deadline'));
  });

  it('job controller deletes the active pods of a site the Job left', async () => {
    await create(job('mover', {}));
    await eventually('one pod per site', () => active('mover', 'a').length === 1 && active('mover', 'b').length === 1);
    world.placement.placeObject('mover', [site('a')]);
    await eventually('site b has no pod', () => podsOf('mover', 'b').length === 0);
    await finish(active('mover', 'a')[0] as KubeObject, 'Succeeded');
    await eventually('the job completes on the site it has', async () => (await statusOf('mover')).conditions?.some((c) => c.type === 'Complete') === true);
  });
});
