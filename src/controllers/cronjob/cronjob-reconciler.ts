import type { Logger } from '../../observability/logger.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Clock } from '../../common/clock.js';
import { statusOf } from '../../vk8s/kinds/workload-types.js';
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { hasReason, type ObjectWriter } from '../controller-kit/object-writer.js';
import { isControlledBy } from '../runtime/owner-references.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Informer } from '../runtime/object-informer.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { jobFromCronJob } from './cronjob-job-factory.js';
import { planCronJob, type CronJobStatusView, type JobReference } from './cronjob-plan.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

const COMPONENT = 'cronjob-controller';
/** The longest a CronJob sleeps before looking again (timers of years are not useful). */
const MAX_SLEEP_MS = 24 * 3600_000;

export interface CronJobReconcilerDeps {
  readonly cronJobs: Informer;
  readonly jobs: Informer;
  readonly writers: { readonly cronJobs: ObjectWriter; readonly jobs: ObjectWriter };
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function referenceTo(job: KubeObject): JobReference {
  return { kind: 'Job', namespace: job.metadata.namespace ?? '', name: job.metadata.name ?? '', uid: job.metadata.uid ?? '', apiVersion: 'batch/v1', resourceVersion: job.metadata.resourceVersion ?? '' };
}

/**
 * One reconcile of one CronJob: carry out {@link planCronJob} (replace, start, clean up,
 * each with kube's events), write status.active and lastScheduleTime through the status
 * subresource, and ask to be woken at the next scheduled time (the work queue's timer, on
 * the injected scheduler).
 */
export function cronJobReconciler(deps: CronJobReconcilerDeps): (key: ObjectKey) => Promise<ReconcileResult | void> {
  const { writers, events } = deps;

  const deleteJob = async (cluster: ClusterRef, cronJob: KubeObject, job: KubeObject): Promise<string | undefined> => {
    try {
      await writers.jobs.delete(cluster, job.metadata.name ?? '', job.metadata.uid ?? '', 'Background');
      events.record(cluster, cronJob, 'Normal', 'SuccessfulDelete', `Deleted job ${job.metadata.name ?? ''}`, COMPONENT);
      return undefined;
    } catch (error) {
      events.record(cluster, cronJob, 'Warning', 'FailedDelete', `Deleted job: ${messageOf(error)}`, COMPONENT);
      return messageOf(error);
    }
  };

  /** Starts the run at `scheduled`; the Job it made (or had made before, found by its name), or a failure. */
  const startJob = async (cluster: ClusterRef, cronJob: KubeObject, scheduled: Date): Promise<KubeObject | string> => {
    const job = jobFromCronJob(cronJob, scheduled);
    try {
      const created = await writers.jobs.create(cluster, job);
      events.record(cluster, cronJob, 'Normal', 'SuccessfulCreate', `Created job ${created.metadata.name ?? ''}`, COMPONENT);
      return created;
    } catch (error) {
      if (hasReason(error, 'AlreadyExists')) {
        const existing = await writers.jobs.store.get(cluster, job.metadata.name ?? '').catch(() => undefined);
        if (existing !== undefined && isControlledBy(existing, cronJob)) return existing;
      }
      events.record(cluster, cronJob, 'Warning', 'FailedCreate', `Error creating job: ${messageOf(error)}`, COMPONENT);
      return messageOf(error);
    }
  };

  return async (key) => {
    const cronJob = deps.cronJobs.get(key.cluster, key.name);
    if (cronJob === undefined) return;
    const uid = cronJob.metadata.uid ?? '';
    const now = deps.clock.now();
    const plan = planCronJob(cronJob, deps.jobs.dependentsOf(uid).filter((j) => isControlledBy(j, cronJob)), now);
    for (const note of plan.notes) events.record(key.cluster, cronJob, note.type, note.reason, note.message, COMPONENT);
    const active = new Map(plan.active.map((job) => [job.metadata.uid ?? '', job]));
    const failures: string[] = [];
    for (const job of plan.replace) {
      const failure = await deleteJob(key.cluster, cronJob, job);
      if (failure === undefined) active.delete(job.metadata.uid ?? '');
      else failures.push(failure);
    }
    let scheduled: Date | undefined;
    if (plan.start !== undefined && failures.length === 0) {
      const started = await startJob(key.cluster, cronJob, plan.start);
      if (typeof started === 'string') failures.push(started);
      else {
        active.set(started.metadata.uid ?? '', started);
        scheduled = plan.start;
      }
    }
    for (const job of plan.cleanup) {
      const failure = await deleteJob(key.cluster, cronJob, job);
      if (failure !== undefined) failures.push(failure);
    }
    await writers.cronJobs.update(
      key.cluster,
      key.name,
      uid,
      (current) => {
        const status = nextStatus(statusOf<CronJobStatusView>(current), [...active.values()], scheduled);
        return jsonEqual(status, current.status ?? {}) ? undefined : { ...current, status };
      },
      'status',
    );
    if (failures.length > 0) throw new Error(`cronjob ${key.name}: ${failures.join('; ')}`);
    return plan.nextRun === undefined ? undefined : { requeueAfterMs: Math.min(MAX_SLEEP_MS, Math.max(1, plan.nextRun.getTime() - now.getTime())) };
  };
}

/** status.active for `active` (references kept as first written), lastScheduleTime moved forward only. */
function nextStatus(current: CronJobStatusView, active: readonly KubeObject[], scheduled: Date | undefined): CronJobStatusView {
  const known = new Map((current.active ?? []).map((ref) => [ref.uid ?? '', ref]));
  const refs = [...active].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1)).map((job) => known.get(job.metadata.uid ?? '') ?? referenceTo(job));
  const status: CronJobStatusView = { ...current };
  if (refs.length > 0) status.active = refs;
  else delete status.active;
  if (scheduled !== undefined) {
    const previous = current.lastScheduleTime === undefined ? undefined : Date.parse(current.lastScheduleTime);
    if (previous === undefined || previous < scheduled.getTime()) status.lastScheduleTime = metav1Time(scheduled);
  }
  return status;
}
