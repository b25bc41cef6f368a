import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore } from '../../registry/generic-store.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, startControllerWorld, testCluster, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import { fakeControllerTime } from '../testing/fake-controller-time.js';
import type { ObjectInformer } from '../runtime/object-informer.js';
import type { CronJobStatusView } from './cronjob-plan.js';
import { startCronJobController } from './cronjob-controller.js';

const cronJob = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'batch/v1beta1',
  kind: 'CronJob',
  metadata: { name, annotations: { 'svc.io/sites': 'svc-io-system/re-1' } },
  spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'c', image: 'busybox' }] } } } }, ...spec },
});

describe('cronjob controller over a memory store on fake time', () => {
  const time = fakeControllerTime(new Date('2024-01-01T00:00:30Z'));
  const { clock, timers } = time;
  /** When the pending timers fire (ms on the fake clock), earliest first. */
  const dueTimes = (): number[] => timers.pending().map((ms) => timers.now() + ms).sort((a, b) => a - b);
  let world: ControllerWorld;
  let jobInformer: ObjectInformer;
  let cronJobs: GenericStore;
  let jobs: GenericStore;
  let controller: { stop(): Promise<void> };
  const jobNames = (owner: string): string[] => jobInformer.list(testCluster).filter((j) => j.metadata.ownerReferences?.[0]?.name === owner).map((j) => j.metadata.name ?? '').sort();
  const status = async (name: string): Promise<CronJobStatusView> => ((await cronJobs.get(testCluster, name)).status ?? {}) as CronJobStatusView;
  /** Once `sleeping` CronJobs wait for their timers, moves the clock to the earliest and fires it. */
  const tick = async (sleeping = 1): Promise<void> => {
    await eventually(`${sleeping} timers are pending`, () => timers.pending().length >= sleeping);
    timers.advance((dueTimes()[0] ?? 0) - timers.now());
  };
  const complete = async (name: string): Promise<void> => {
    await jobs.update(userScope(), name, (job) => ({ ...job, status: { startTime: clock.now().toISOString().replace(/\.\d+Z$/, 'Z'), conditions: [{ type: 'Complete', status: 'True' }] } }), { subresource: 'status', retryOnConflict: true });
  };
  const create = async (object: KubeObject): Promise<void> => {
    cronJobs.strategy.defaults(object);
    await cronJobs.create(userScope(), object);
  };

  before(async () => {
    world = await startControllerWorld({ clock });
    cronJobs = world.storeOf({ group: 'batch', resource: 'cronjobs' });
    jobs = world.storeOf({ group: 'batch', resource: 'jobs' });
    const cronJobInformer = await world.informer({ group: 'batch', resource: 'cronjobs' });
    jobInformer = await world.informer({ group: 'batch', resource: 'jobs' });
    controller = startCronJobController({
      informers: { cronJobs: cronJobInformer, jobs: jobInformer },
      storage: world.storage,
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

  it('cronjob controller starts a Job at each scheduled minute, woken by its timer', async () => {
    await create(cronJob('every', { successfulJobsHistoryLimit: 1 }));
    await eventually('the controller sleeps until 00:01', () => dueTimes().includes(Date.parse('2024-01-01T00:01:00Z')));
    assert.deepEqual(jobNames('every'), []);
    await tick();
    await eventually('the first Job exists', () => jobNames('every').length === 1);
    assert.deepEqual(jobNames('every'), ['every-28401121']);
    const made = jobInformer.get(testCluster, 'every-28401121');
    assert.equal(made?.metadata.annotations?.['svc.io/sites'], 'svc-io-system/re-1');
    await eventually('status lists it active', async () => (await status('every')).active?.[0]?.name === 'every-28401121');
    assert.equal((await status('every')).lastScheduleTime, '2024-01-01T00:01:00Z');
    assert.ok(world.events.recorded.some((e) => e.object === 'CronJob/every' && e.reason === 'SuccessfulCreate' && e.message === 'Created job every-28401121'));
  });

  it('cronjob controller notices completed Jobs and keeps the successful history limit', async () => {
    await complete('every-28401121');
    await eventually('the completed Job leaves status.active', async () => (await status('every')).active === undefined);
    assert.ok(world.events.recorded.some((e) => e.reason === 'SawCompletedJob' && e.message === 'Saw completed job: every-28401121'));
    await tick();
    await eventually('the second Job exists', () => jobNames('every').includes('every-28401122'));
    await complete('every-28401122');
    await eventually('the older completed Job is deleted', () => !jobNames('every').includes('every-28401121'));
    assert.ok(world.events.recorded.some((e) => e.reason === 'SuccessfulDelete' && e.message === 'Deleted job every-28401121'));
  });

  it('cronjob controller forbids a second run while one is active, and starts none while suspended', async () => {
    await create(cronJob('single', { concurrencyPolicy: 'Forbid' }));
    await tick(2);
    await eventually('the first run starts', () => jobNames('single').length === 1);
    await tick(2);
    await eventually('the cronjob is looked at after the next minute', async () => (await status('single')).active?.length === 1);
    assert.equal(jobNames('single').length, 1, 'no second run while the first is active');
    await cronJobs.update(userScope(), 'single', (current) => ({ ...current, spec: { ...(current.spec as object), suspend: true } }), { retryOnConflict: true });
    await complete(jobNames('single')[0] ?? '');
    await eventually('the run leaves status.active', async () => (await status('single')).active === undefined);
    timers.advance(120_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(jobNames('single').length, 1, 'a suspended CronJob starts nothing');
  });
});
