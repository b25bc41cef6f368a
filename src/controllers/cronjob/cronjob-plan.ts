import { parseCronSchedule } from '../../vk8s/kinds/workload-cron-schedule.js';
import { specOf, statusOf, type CronJobSpec } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { isJobFinished, type JobStatusView } from '../job/job-status.js';
import { lastRunIn, nextRunAfter, rfc1123z, unmetScheduleTimes } from './cron-times.js';

/** A core/v1 ObjectReference to a Job, as CronJob status.active lists them. */
export interface JobReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
}

export interface CronJobStatusView {
  active?: JobReference[];
  lastScheduleTime?: string;
  [field: string]: unknown;
}

interface CronJobNote {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

export interface CronJobPlan {
  /** Events about what the controller saw (completed, missing Jobs; schedules it cannot or did not start). */
  readonly notes: readonly CronJobNote[];
  /** The unfinished Jobs it controls, by name. */
  readonly active: readonly KubeObject[];
  /** Active Jobs to delete before starting the next (concurrencyPolicy Replace). */
  readonly replace: readonly KubeObject[];
  /** The scheduled time to start a Job for now, if any. */
  readonly start?: Date;
  /** Finished Jobs beyond the history limits, oldest first. */
  readonly cleanup: readonly KubeObject[];
  /** The next scheduled time after now (unset while suspended or being deleted). */
  readonly nextRun?: Date;
}

const finished = (job: KubeObject): boolean => isJobFinished(statusOf<JobStatusView>(job));
const succeeded = (job: KubeObject): boolean => (statusOf<JobStatusView>(job).conditions ?? []).some((c) => c.type === 'Complete' && c.status === 'True');
const byName = (a: KubeObject, b: KubeObject): number => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : (a.metadata.name ?? '') > (b.metadata.name ?? '') ? 1 : 0);

/** kube's byJobStartTime: Jobs without a start time last, ties by name. */
function byStartTime(a: KubeObject, b: KubeObject): number {
  const sa = statusOf<JobStatusView>(a).startTime;
  const sb = statusOf<JobStatusView>(b).startTime;
  if (sa === undefined || sb === undefined) return sa === sb ? byName(a, b) : sa === undefined ? 1 : -1;
  return sa === sb ? byName(a, b) : sa < sb ? -1 : 1;
}

function overLimit(jobs: readonly KubeObject[], limit: number | undefined): KubeObject[] {
  if (limit === undefined || jobs.length <= limit) return [];
  return [...jobs].sort(byStartTime).slice(0, jobs.length - limit);
}

/**
 * One look at a CronJob (kube 1.17's syncOne and cleanupFinishedJobs), pure:
 * - its active Jobs are the unfinished Jobs it controls (read from the Jobs themselves, so a
 *   stale status never loses one); Jobs listed active that finished are noted
 *   (SawCompletedJob), ones that are gone too (MissingJob);
 * - finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit go, oldest first;
 * - unless suspended or being deleted: the most recent unmet schedule time since
 *   lastScheduleTime (or creation), within startingDeadlineSeconds when set, is started, as
 *   concurrencyPolicy allows (Forbid: not while one is active; Replace: the active ones go
 *   first). More than 100 unmet times: FailedNeedsStart, nothing starts. A run that fell
 *   outside the starting deadline with nothing to start in it: MissSchedule.
 */
export function planCronJob(cronJob: KubeObject, jobs: readonly KubeObject[], now: Date): CronJobPlan {
  const spec = specOf<CronJobSpec>(cronJob);
  const status = statusOf<CronJobStatusView>(cronJob);
  const notes: CronJobNote[] = [];
  const byUid = new Map(jobs.map((j) => [j.metadata.uid ?? '', j]));
  for (const ref of status.active ?? []) {
    const job = byUid.get(ref.uid ?? '');
    if (job === undefined) notes.push({ type: 'Normal', reason: 'MissingJob', message: `Active job went missing: ${ref.name ?? ''}` });
    else if (finished(job)) notes.push({ type: 'Normal', reason: 'SawCompletedJob', message: `Saw completed job: ${job.metadata.name ?? ''}` });
  }
  const active = jobs.filter((j) => !finished(j)).sort(byName);
  const done = jobs.filter(finished);
  const cleanup = [...overLimit(done.filter(succeeded), spec.successfulJobsHistoryLimit), ...overLimit(done.filter((j) => !succeeded(j)), spec.failedJobsHistoryLimit)];
  const base = { notes, active, replace: [] as KubeObject[], cleanup };
  if (cronJob.metadata.deletionTimestamp !== undefined || spec.suspend === true) return base;
  const schedule = parseCronSchedule(spec.schedule ?? '');
  if ('error' in schedule) {
    notes.push({ type: 'Warning', reason: 'FailedNeedsStart', message: `Cannot determine if job needs to be started: unparseable schedule: ${spec.schedule ?? ''} : ${schedule.error}` });
    return base;
  }
  const nextRun = nextRunAfter(schedule, now);
  const earliest = new Date(status.lastScheduleTime ?? cronJob.metadata.creationTimestamp ?? now.toISOString());
  const unmet = unmetScheduleTimes({ schedule, earliest, now, ...(spec.startingDeadlineSeconds === undefined ? {} : { startingDeadlineSeconds: spec.startingDeadlineSeconds }) });
  if (unmet.kind === 'tooMany') {
    notes.push({
      type: 'Warning',
      reason: 'FailedNeedsStart',
      message: 'Cannot determine if job needs to be started: too many missed start times (> 100). Set or decrease .spec.startingDeadlineSeconds or check clock skew',
    });
    return { ...base, nextRun };
  }
  if (unmet.latest === undefined) {
    if (spec.startingDeadlineSeconds !== undefined) {
      const missed = lastRunIn(schedule, earliest, new Date(now.getTime() - spec.startingDeadlineSeconds * 1000));
      if (missed !== undefined) notes.push({ type: 'Warning', reason: 'MissSchedule', message: `Missed scheduled time to start a job: ${rfc1123z(missed)}` });
    }
    return { ...base, nextRun };
  }
  if (spec.concurrencyPolicy === 'Forbid' && active.length > 0) return { ...base, nextRun };
  return { ...base, replace: spec.concurrencyPolicy === 'Replace' ? active : [], start: unmet.latest, nextRun };
}
