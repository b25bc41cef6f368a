import type { Logger } from '../../observability/logger.js';
import type { PlacedSite } from '../placement/placed-site.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Clock } from '../../common/clock.js';
import { specOf, statusOf, type JobSpec } from '../../vk8s/kinds/workload-types.js';
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { Expectations } from '../runtime/expectations.js';
import type { ObjectWriter } from '../controller-kit/object-writer.js';
import type { PodTemplateFor } from '../placement/pod-template-for.js';
import { isControlledBy } from '../runtime/owner-references.js';
import { isPodReady, isTerminating, podPhase, restartCount } from '../runtime/pod-state.js';
import { siteOf } from '../controller-kit/site-of.js';
import { formatSiteStatus, readSiteStatus, withSiteStatus } from '../controller-kit/site-status.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Informer } from '../runtime/object-informer.js';
import { formatObjectKey, type ObjectKey } from '../runtime/object-key.js';
import { jobPod } from './job-pod-factory.js';
import { planJobSite, type JobPodView, type JobSitePlan, type JobSiteRecord } from './job-site-plan.js';
import { isJobFinished, jobStatus, type JobStatusView } from './job-status.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

const JOB_RESOURCE = { group: 'batch', resource: 'jobs' } as const;
const COMPONENT = 'job-controller';

export interface JobReconcilerDeps {
  readonly jobs: Informer;
  readonly pods: Informer;
  readonly writers: { readonly jobs: ObjectWriter; readonly pods: ObjectWriter };
  readonly placement: PlacementView;
  readonly podTemplateFor: PodTemplateFor;
  readonly events: EventRecorder;
  readonly expectations: Expectations;
  readonly clock: Clock;
  readonly logger: Logger;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * One reconcile of one Job: every site it is placed on runs its own share
 * ({@link planJobSite}); sites it left lose their active pods; a site's record freezes once
 * it finished. The per-site records go into the `svc.io/site-status` annotation, the sums
 * and the Job-level condition into the status. A finished Job is left alone (as kube).
 */
export function jobReconciler(deps: JobReconcilerDeps): (key: ObjectKey) => Promise<ReconcileResult | void> {
  const { writers, events, expectations } = deps;

  const createPods = async (cluster: ClusterRef, job: KubeObject, site: PlacedSite, count: number, expectKey: string): Promise<string[]> => {
    const template = deps.podTemplateFor(cluster, job, specOf<JobSpec>(job).template ?? {}, site);
    const failures: string[] = [];
    expectations.expectCreations(expectKey, count);
    for (let i = 0; i < count; i++) {
      try {
        const pod = await writers.pods.create(cluster, jobPod(job, site, template));
        events.record(cluster, job, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name ?? ''}`, COMPONENT);
      } catch (error) {
        expectations.creationObserved(expectKey);
        events.record(cluster, job, 'Warning', 'FailedCreate', `Error creating: ${messageOf(error)}`, COMPONENT);
        failures.push(messageOf(error));
      }
    }
    return failures;
  };

  const deletePods = async (cluster: ClusterRef, job: KubeObject, pods: readonly JobPodView[], expectKey: string): Promise<string[]> => {
    const failures: string[] = [];
    expectations.expectDeletions(expectKey, pods.map((p) => p.uid));
    for (const pod of pods) {
      try {
        if ((await writers.pods.delete(cluster, pod.name, pod.uid)) === 'gone') expectations.deletionObserved(expectKey, pod.uid);
        else events.record(cluster, job, 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.name}`, COMPONENT);
      } catch (error) {
        expectations.deletionObserved(expectKey, pod.uid);
        events.record(cluster, job, 'Warning', 'FailedDelete', `Error deleting: ${messageOf(error)}`, COMPONENT);
        failures.push(messageOf(error));
      }
    }
    return failures;
  };

  return async (key) => {
    const expectKey = formatObjectKey(key);
    const job = deps.jobs.get(key.cluster, key.name);
    if (job === undefined) {
      expectations.forget(expectKey);
      return;
    }
    const previous = statusOf<JobStatusView>(job);
    if (isJobFinished(previous) || isTerminating(job)) return;
    const uid = job.metadata.uid ?? '';
    const spec = specOf<JobSpec>(job);
    const now = deps.clock.now();
    const startTime = previous.startTime ?? metav1Time(now);
    const deadlineMs = spec.activeDeadlineSeconds === undefined ? undefined : Date.parse(startTime) + spec.activeDeadlineSeconds * 1000 - now.getTime();
    const prior = readSiteStatus<JobSiteRecord>(job);
    const podsBySite = sitePods(deps.pods.dependentsOf(uid).filter((p) => isControlledBy(p, job)));
    const placed = new Map(deps.placement.placementOf(JOB_RESOURCE, key.cluster, job, [...podsBySite.keys(), ...Object.keys(prior)]).sites.map((s) => [s.name, s]));
    const finishedBefore = new Set(Object.entries(prior).filter(([, r]) => r.condition !== undefined).map(([site]) => site));
    const canAct = expectations.satisfied(expectKey);
    const records = new Map<string, JobSiteRecord>();
    const failures: string[] = [];
    for (const siteName of [...new Set([...placed.keys(), ...podsBySite.keys(), ...finishedBefore])].sort()) {
      const pods = podsBySite.get(siteName) ?? [];
      const site = placed.get(siteName);
      const plan: JobSitePlan = finishedBefore.has(siteName)
        ? { record: prior[siteName] as JobSiteRecord, create: 0, delete: prior[siteName]?.condition === 'Failed' ? activeOf(pods) : [] }
        : site === undefined
          ? { record: { active: 0, succeeded: 0, failed: 0 }, create: 0, delete: activeOf(pods) }
          : planJobSite({
              parallelism: spec.parallelism ?? 1,
              completions: spec.completions,
              backoffLimit: spec.backoffLimit ?? 6,
              restartPolicy: spec.template?.spec?.restartPolicy ?? 'Never',
              deadlineExceeded: deadlineMs !== undefined && deadlineMs <= 0,
              pods,
            });
      if (canAct && site !== undefined && plan.create > 0) failures.push(...(await createPods(key.cluster, job, site, plan.create, expectKey)));
      if (canAct && plan.delete.length > 0) failures.push(...(await deletePods(key.cluster, job, plan.delete, expectKey)));
      if (site !== undefined || finishedBefore.has(siteName) || pods.length > 0) records.set(siteName, plan.record);
      if (!finishedBefore.has(siteName) && plan.record.condition === 'Failed' && plan.record.reason === 'BackoffLimitExceeded') {
        events.record(key.cluster, job, 'Warning', 'BackoffLimitExceeded', `${plan.record.message ?? ''} on site ${siteName}`, COMPONENT);
      }
    }
    const counted = new Set([...placed.keys(), ...[...records].filter(([, r]) => r.condition !== undefined).map(([site]) => site)]);
    const result = jobStatus({ previous, startTime, sites: records, counted, now: metav1Time(now) });
    const breakdown = formatSiteStatus(records);
    const annotated = await writers.jobs.update(key.cluster, key.name, uid, (current) => withSiteStatus(current, breakdown));
    if (annotated === 'gone') return;
    const written = await writers.jobs.update(key.cluster, key.name, uid, (current) => (jsonEqual(current.status, result.status) ? undefined : { ...current, status: result.status }), 'status');
    if (written === 'written' && result.finished === 'Complete') events.record(key.cluster, job, 'Normal', 'Completed', 'Job completed', COMPONENT);
    if (written === 'written' && result.finished === 'Failed') {
      const condition = result.status.conditions?.at(-1);
      if (condition?.reason === 'DeadlineExceeded') events.record(key.cluster, job, 'Warning', 'DeadlineExceeded', condition.message ?? '', COMPONENT);
    }
    if (failures.length > 0) throw new Error(`job ${key.name}: ${failures.join('; ')}`);
    return result.finished === undefined && deadlineMs !== undefined && deadlineMs > 0 ? { requeueAfterMs: deadlineMs } : undefined;
  };
}

function activeOf(pods: readonly JobPodView[]): JobPodView[] {
  return pods.filter((p) => p.phase !== 'Succeeded' && p.phase !== 'Failed' && !p.terminating);
}

function sitePods(pods: readonly KubeObject[]): Map<string, JobPodView[]> {
  const bySite = new Map<string, JobPodView[]>();
  for (const pod of pods) {
    const site = siteOf(pod);
    if (site === undefined) continue;
    const view: JobPodView = {
      name: pod.metadata.name ?? '',
      uid: pod.metadata.uid ?? '',
      phase: podPhase(pod),
      ready: isPodReady(pod),
      terminating: isTerminating(pod),
      restarts: restartCount(pod),
      creationTimestamp: pod.metadata.creationTimestamp ?? '',
    };
    const list = bySite.get(site);
    if (list === undefined) bySite.set(site, [view]);
    else list.push(view);
  }
  return bySite;
}
