import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { jobFromCronJob } from './cronjob-job-factory.js';
import { planCronJob } from './cronjob-plan.js';

const cronJob = (spec: Record<string, unknown> = {}, status: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject => ({
  apiVersion: 'batch/v1beta1',
  kind: 'CronJob',
  metadata: { name: 'tick', namespace: 'default', uid: 'cj-uid', creationTimestamp: '2024-01-01T00:00:00Z', ...(annotations === undefined ? {} : { annotations }) },
  spec: {
    schedule: '*/5 * * * *',
    concurrencyPolicy: 'Allow',
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
    jobTemplate: { metadata: { labels: { app: 'tick' } }, spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
    ...spec,
  },
  status,
});
const job = (name: string, state: 'active' | 'Complete' | 'Failed', startTime?: string): KubeObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, uid: `${name}-uid` },
  status: {
    ...(startTime === undefined ? {} : { startTime }),
    ...(state === 'active' ? {} : { conditions: [{ type: state, status: 'True' }] }),
  },
});
const now = new Date('2024-01-01T00:05:10Z');

describe('cronjob plan', () => {
  it('cronjob plan starts the most recent unmet run and wakes at the next one', () => {
    const plan = planCronJob(cronJob(), [], now);
    assert.equal(plan.start?.toISOString(), '2024-01-01T00:05:00.000Z');
    assert.equal(plan.nextRun?.toISOString(), '2024-01-01T00:10:00.000Z');
    assert.equal(planCronJob(cronJob({}, { lastScheduleTime: '2024-01-01T00:05:00Z' }), [], now).start, undefined);
  });

  it('cronjob plan starts nothing while suspended', () => {
    const plan = planCronJob(cronJob({ suspend: true }), [], now);
    assert.equal(plan.start, undefined);
    assert.equal(plan.nextRun, undefined);
  });

  it('cronjob plan honours Forbid and Replace with an active Job', () => {
    const running = [job('tick-28401120', 'active')];
    assert.equal(planCronJob(cronJob({ concurrencyPolicy: 'Forbid' }), running, now).start, undefined);
    const replace = planCronJob(cronJob({ concurrencyPolicy: 'Replace' }), running, now);
    assert.deepEqual(replace.replace.map((j) => j.metadata.name), ['tick-28401120']);
    assert.ok(replace.start);
    const allow = planCronJob(cronJob(), running, now);
    assert.deepEqual([allow.replace.length, allow.start !== undefined], [0, true]);
  });

  it('cronjob plan notes completed and missing Jobs it listed as active', () => {
    const status = { active: [{ name: 'tick-1', uid: 'tick-1-uid' }, { name: 'tick-2', uid: 'tick-2-uid' }] };
    const plan = planCronJob(cronJob({}, status), [job('tick-1', 'Complete')], now);
    assert.deepEqual(plan.notes.map((n) => `${n.reason}: ${n.message}`), ['SawCompletedJob: Saw completed job: tick-1', 'MissingJob: Active job went missing: tick-2']);
    assert.equal(plan.active.length, 0);
  });

  it('cronjob plan removes the oldest finished Jobs beyond the history limits', () => {
    const jobs = [
      job('ok-3', 'Complete', '2024-01-01T00:03:00Z'),
      job('ok-1', 'Complete', '2024-01-01T00:01:00Z'),
      job('ok-2', 'Complete', '2024-01-01T00:02:00Z'),
      job('ok-4', 'Complete', '2024-01-01T00:04:00Z'),
      job('bad-1', 'Failed', '2024-01-01T00:01:00Z'),
      job('bad-2', 'Failed', '2024-01-01T00:02:00Z'),
      job('running', 'active'),
    ];
    assert.deepEqual(planCronJob(cronJob(), jobs, now).cleanup.map((j) => j.metadata.name), ['ok-1', 'bad-1']);
  });

  it('cronjob plan reports more than 100 missed runs instead of starting one', () => {
    const plan = planCronJob(cronJob({ schedule: '* * * * *' }), [], new Date('2024-01-01T02:00:00Z'));
    assert.equal(plan.start, undefined);
    assert.equal(plan.notes[0]?.reason, 'FailedNeedsStart');
    assert.match(plan.notes[0]?.message ?? '', /too many missed start times \(> 100\)/);
  });

  it('cronjob plan reports a run missed outside startingDeadlineSeconds', () => {
    const plan = planCronJob(cronJob({ startingDeadlineSeconds: 5 }), [], now);
    assert.equal(plan.start, undefined);
    assert.deepEqual(plan.notes.map((n) => [n.reason, n.message]), [['MissSchedule', 'Missed scheduled time to start a job: Mon, 01 Jan 2024 00:05:00 +0000']]);
  });

  it('cronjob plan builds Jobs named by minute carrying the template and the placement annotations', () => {
    const source = cronJob({}, {}, { 'svc.io/virtual-sites': 'svc-io-shared/all-regional-edges', 'svc.io/workload-flavor-c': 'medium', unrelated: 'x' });
    const made = jobFromCronJob(source, new Date('2024-01-01T00:05:00Z'));
    assert.equal(made.metadata.name, 'tick-28401125');
    assert.deepEqual(made.metadata.labels, { app: 'tick' });
    assert.deepEqual(made.metadata.annotations, { 'svc.io/virtual-sites': 'svc-io-shared/all-regional-edges', 'svc.io/workload-flavor-c': 'medium' });
    assert.deepEqual(made.metadata.ownerReferences, [{ apiVersion: 'batch/v1beta1', kind: 'CronJob', name: 'tick', uid: 'cj-uid', controller: true, blockOwnerDeletion: true }]);
    assert.equal((made.spec as { template?: unknown }).template !== undefined, true);
  });
});
