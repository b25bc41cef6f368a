/**
 * What the Job controller does on one site, as a pure function of the site's pods (kube
 * 1.17's syncJob and manageJob for one site's share: replicas are per site, so every site
 * runs `completions` completions with `parallelism` pods at a time):
 * - a site fails when its failed pods exceed backoffLimit (restartPolicy OnFailure: when the
 *   restarts of its running pods reach it), or when the Job's activeDeadlineSeconds passed;
 *   its active pods are then deleted and counted as failed;
 * - otherwise it keeps `min(completions - succeeded, parallelism)` pods active (without
 *   completions: `parallelism` until one succeeds, then no new ones) and completes once
 *   `succeeded >= completions` (without completions: one succeeded and none active).
 */

export interface JobPodView {
  readonly name: string;
  readonly uid: string;
  readonly phase: string;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly restarts: number;
  readonly creationTimestamp: string;
}

export interface JobSiteInput {
  readonly parallelism: number;
  /** Unset: the work queue pattern (done when any pod succeeded and none is active). */
  readonly completions: number | undefined;
  readonly backoffLimit: number;
  readonly restartPolicy: string;
  readonly deadlineExceeded: boolean;
  readonly pods: readonly JobPodView[];
}

/** A site's share of the Job's status, as the `svc.io/site-status` annotation carries it. */
export interface JobSiteRecord {
  readonly active: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Set once the site finished; a finished site's record no longer changes. */
  readonly condition?: 'Complete' | 'Failed';
  readonly reason?: string;
  readonly message?: string;
}

export interface JobSitePlan {
  readonly record: JobSiteRecord;
  /** How many pods to create. */
  readonly create: number;
  readonly delete: readonly JobPodView[];
}

/** kube's burstReplicas: at most this many pods created per site in one pass. */
const MAX_CREATES_PER_PASS = 500;

const BACKOFF_LIMIT_MESSAGE = 'Job has reached the specified backoff limit';
const DEADLINE_MESSAGE = 'Job was active longer than specified deadline';

const isActive = (pod: JobPodView): boolean => pod.phase !== 'Succeeded' && pod.phase !== 'Failed' && !pod.terminating;

/** kube's pastBackoffLimitOnFailure: under OnFailure, container restarts of pending and running pods count as failures. */
function pastBackoffLimitOnFailure(input: JobSiteInput): boolean {
  if (input.restartPolicy !== 'OnFailure') return false;
  const restarts = input.pods.filter((p) => p.phase === 'Running' || p.phase === 'Pending').reduce((n, p) => n + p.restarts, 0);
  return input.backoffLimit === 0 ? restarts > 0 : restarts >= input.backoffLimit;
}

/** Pods to delete first when too many are active: not ready before ready, newer before older (kube's ActivePods order). */
function deletionOrder(a: JobPodView, b: JobPodView): number {
  if (a.ready !== b.ready) return a.ready ? 1 : -1;
  return a.creationTimestamp < b.creationTimestamp ? 1 : a.creationTimestamp > b.creationTimestamp ? -1 : 0;
}

export function planJobSite(input: JobSiteInput): JobSitePlan {
  const active = input.pods.filter(isActive);
  const succeeded = input.pods.filter((p) => p.phase === 'Succeeded').length;
  const failed = input.pods.filter((p) => p.phase === 'Failed').length;
  const failure =
    failed > input.backoffLimit || pastBackoffLimitOnFailure(input)
      ? { reason: 'BackoffLimitExceeded', message: BACKOFF_LIMIT_MESSAGE }
      : input.deadlineExceeded
        ? { reason: 'DeadlineExceeded', message: DEADLINE_MESSAGE }
        : undefined;
  if (failure !== undefined) {
    return { record: { active: 0, succeeded, failed: failed + active.length, condition: 'Failed', ...failure }, create: 0, delete: active };
  }
  let create = 0;
  let remove: JobPodView[] = [];
  if (active.length > input.parallelism) {
    remove = [...active].sort(deletionOrder).slice(0, active.length - input.parallelism);
  } else if (active.length < input.parallelism) {
    const wantActive =
      input.completions === undefined ? (succeeded > 0 ? active.length : input.parallelism) : Math.max(0, Math.min(input.completions - succeeded, input.parallelism));
    create = Math.min(Math.max(0, wantActive - active.length), MAX_CREATES_PER_PASS);
  }
  const nowActive = active.length + create - remove.length;
  const complete = input.completions === undefined ? succeeded > 0 && nowActive === 0 : succeeded >= input.completions;
  return { record: { active: nowActive, succeeded, failed, ...(complete ? { condition: 'Complete' as const } : {}) }, create, delete: remove };
}
