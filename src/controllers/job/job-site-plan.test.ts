import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planJobSite, type JobPodView, type JobSiteInput } from './job-site-plan.js';
import { jobStatus } from './job-status.js';

let serial = 0;
const pod = (phase: string, extra: Partial<JobPodView> = {}): JobPodView => {
  serial++;
  return { name: `p${serial}`, uid: `u${serial}`, phase, ready: phase === 'Running', terminating: false, restarts: 0, creationTimestamp: `2024-01-01T00:00:${String(serial % 60).padStart(2, '0')}Z`, ...extra };
};
const input = (pods: JobPodView[], extra: Partial<JobSiteInput> = {}): JobSiteInput => ({ parallelism: 2, completions: 3, backoffLimit: 2, restartPolicy: 'Never', deadlineExceeded: false, pods, ...extra });

describe('job site plan', () => {
  it('job site plan starts parallelism pods, never more than the completions left', () => {
    assert.equal(planJobSite(input([])).create, 2);
    assert.equal(planJobSite(input([pod('Succeeded'), pod('Succeeded')])).create, 1);
    assert.equal(planJobSite(input([pod('Running'), pod('Succeeded'), pod('Succeeded')])).create, 0);
  });

  it('job site plan completes once succeeded reaches completions', () => {
    const plan = planJobSite(input([pod('Succeeded'), pod('Succeeded'), pod('Succeeded')]));
    assert.deepEqual(plan.record, { active: 0, succeeded: 3, failed: 0, condition: 'Complete' });
  });

  it('job site plan without completions stops starting pods after one succeeded and completes when none is active', () => {
    const running = planJobSite(input([pod('Succeeded'), pod('Running')], { completions: undefined }));
    assert.equal(running.create, 0);
    assert.equal(running.record.condition, undefined);
    assert.equal(planJobSite(input([pod('Succeeded'), pod('Succeeded')], { completions: undefined })).record.condition, 'Complete');
    assert.equal(planJobSite(input([], { completions: undefined })).create, 2);
  });

  it('job site plan replaces failed pods until failures exceed backoffLimit', () => {
    const retrying = planJobSite(input([pod('Failed'), pod('Failed'), pod('Running')]));
    assert.equal(retrying.create, 1);
    assert.equal(retrying.record.failed, 2);
    const failed = planJobSite(input([pod('Failed'), pod('Failed'), pod('Failed'), pod('Running')]));
    assert.equal(failed.record.condition, 'Failed');
    assert.equal(failed.record.reason, 'BackoffLimitExceeded');
    assert.equal(failed.record.failed, 4, 'the deleted active pod counts as failed');
    assert.equal(failed.delete.length, 1);
    assert.equal(failed.create, 0);
  });

  it('job site plan counts container restarts as failures under OnFailure', () => {
    assert.equal(planJobSite(input([pod('Running', { restarts: 1 })], { restartPolicy: 'OnFailure' })).record.condition, undefined);
    assert.equal(planJobSite(input([pod('Running', { restarts: 2 })], { restartPolicy: 'OnFailure' })).record.reason, 'BackoffLimitExceeded');
    assert.equal(planJobSite(input([pod('Running', { restarts: 2 })], { restartPolicy: 'Never' })).record.condition, undefined);
    assert.equal(planJobSite(input([pod('Running', { restarts: 1 })], { restartPolicy: 'OnFailure', backoffLimit: 0 })).record.condition, 'Failed');
  });

  it('job site plan fails the site past the deadline and deletes its active pods', () => {
    const plan = planJobSite(input([pod('Running'), pod('Pending'), pod('Succeeded')], { deadlineExceeded: true }));
    assert.deepEqual(plan.record, { active: 0, succeeded: 1, failed: 2, condition: 'Failed', reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    assert.equal(plan.delete.length, 2);
  });

  it('job site plan deletes extra active pods, not-ready ones first', () => {
    const ready = pod('Running');
    const pending = pod('Pending');
    const plan = planJobSite(input([ready, pending, pod('Running')], { parallelism: 2 }));
    assert.deepEqual(plan.delete.map((p) => p.name), [pending.name]);
  });

  it('job site plan ignores terminating pods as active', () => {
    assert.equal(planJobSite(input([pod('Running', { terminating: true })])).create, 2);
  });
});

describe('job status', () => {
  const now = '2024-01-01T00:10:00Z';
  it('job status sums sites and completes only when every counted site completed', () => {
    const sites = new Map([
      ['a', { active: 0, succeeded: 2, failed: 1, condition: 'Complete' as const }],
      ['b', { active: 1, succeeded: 1, failed: 0 }],
    ]);
    const running = jobStatus({ previous: {}, startTime: '2024-01-01T00:00:00Z', sites, counted: new Set(['a', 'b']), now });
    assert.deepEqual(running.status, { startTime: '2024-01-01T00:00:00Z', active: 1, succeeded: 3, failed: 1 });
    assert.equal(running.finished, undefined);
    sites.set('b', { active: 0, succeeded: 2, failed: 0, condition: 'Complete' });
    const done = jobStatus({ previous: running.status, startTime: '2024-01-01T00:00:00Z', sites, counted: new Set(['a', 'b']), now });
    assert.equal(done.finished, 'Complete');
    assert.equal(done.status.completionTime, now);
    assert.deepEqual(done.status.conditions, [{ type: 'Complete', status: 'True', lastProbeTime: now, lastTransitionTime: now }]);
    assert.equal('active' in done.status, false);
  });

  it('job status fails once every site finished and one failed', () => {
    const sites = new Map([
      ['a', { active: 0, succeeded: 0, failed: 3, condition: 'Failed' as const, reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }],
      ['b', { active: 0, succeeded: 1, failed: 0, condition: 'Complete' as const }],
    ]);
    const result = jobStatus({ previous: {}, startTime: now, sites, counted: new Set(['a', 'b']), now });
    assert.equal(result.finished, 'Failed');
    assert.equal(result.status.conditions?.[0]?.reason, 'BackoffLimitExceeded');
    assert.equal(result.status.completionTime, undefined);
  });

  it('job status never completes a Job placed nowhere', () => {
    assert.equal(jobStatus({ previous: {}, startTime: now, sites: new Map(), counted: new Set(), now }).finished, undefined);
  });
});
