/** The annotations kube's deployment controller keeps on Deployments and their ReplicaSets. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/**
 * The revision of a per-site ReplicaSet as the platform keeps it: on every ReplicaSet, while
 * kube's {@link REVISION_ANNOTATION} is on one ReplicaSet per revision only (see revision-holders.ts).
 */
export const PLATFORM_REVISION_ANNOTATION = 'svc.io/revision';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
/** kube's limit on the length of the revision-history annotation. */
const MAX_REVISION_HISTORY_CHARS = 2000;

/**
 * Deployment annotations never copied to its ReplicaSets (kube's skip list, the platform's
 * per-site status, and the platform's revision, which `kubectl rollout undo` copies from a
 * ReplicaSet onto the Deployment).
 */
export function isSkippedAnnotation(key: string, siteStatusAnnotation: string): boolean {
  return (
    key === LAST_APPLIED ||
    key === REVISION_ANNOTATION ||
    key === REVISION_HISTORY_ANNOTATION ||
    key === DESIRED_REPLICAS_ANNOTATION ||
    key === MAX_REPLICAS_ANNOTATION ||
    key === ROLLBACK_TO ||
    key === PLATFORM_REVISION_ANNOTATION ||
    key === siteStatusAnnotation
  );
}

/** A ReplicaSet's revision: the platform's annotation, else kube's (ReplicaSets written before the platform kept its own). */
export function revisionOf(annotations: Readonly<Record<string, string>>): number | undefined {
  return intValue(annotations[PLATFORM_REVISION_ANNOTATION]) ?? intValue(annotations[REVISION_ANNOTATION]);
}

/**
 * The annotations of the Deployment's new ReplicaSet (kube's SetNewReplicaSetAnnotations):
 * the Deployment's own (but the skipped ones) added or updated; the revision raised to
 * `revision` when lower — a ReplicaSet brought back by a rollback keeps its earlier numbers
 * in `revision-history` (comma-separated, oldest dropped past 2000 characters). The revision
 * goes into the platform's annotation, and into kube's when the ReplicaSet `holdsRevision`.
 */
export function newReplicaSetAnnotations(
  current: Readonly<Record<string, string>>,
  deployment: Readonly<Record<string, string>>,
  revision: number,
  siteStatusAnnotation: string,
  holdsRevision: boolean,
): Record<string, string> {
  const next: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(deployment)) if (!isSkippedAnnotation(key, siteStatusAnnotation)) next[key] = value;
  const previous = revisionOf(current);
  if (previous === undefined || previous < revision) {
    next[PLATFORM_REVISION_ANNOTATION] = String(revision);
    if (previous !== undefined) {
      const history = (current[REVISION_HISTORY_ANNOTATION] ?? '').split(',').filter((r) => r !== '');
      history.push(String(previous));
      while (history.join(',').length > MAX_REVISION_HISTORY_CHARS && history.length > 1) history.shift();
      next[REVISION_HISTORY_ANNOTATION] = history.join(',');
    }
  }
  return withRevisionMark(next, holdsRevision);
}

/**
 * `annotations` with the platform's revision kept (copied from kube's on older ReplicaSets)
 * and kube's revision annotation present — equal to it — only when `holdsRevision`.
 */
export function withRevisionMark(annotations: Readonly<Record<string, string>>, holdsRevision: boolean): Record<string, string> {
  const rest: Record<string, string> = { ...annotations };
  delete rest[REVISION_ANNOTATION];
  const revision = revisionOf(annotations);
  if (revision === undefined) return rest;
  rest[PLATFORM_REVISION_ANNOTATION] = String(revision);
  if (holdsRevision) rest[REVISION_ANNOTATION] = String(revision);
  return rest;
}

/** The scale annotations kube sets whenever it sizes a ReplicaSet of a Deployment. */
export function replicasAnnotations(desired: number, max: number): Record<string, string> {
  return { [DESIRED_REPLICAS_ANNOTATION]: String(desired), [MAX_REPLICAS_ANNOTATION]: String(max) };
}

/** An annotation holding a decimal integer (kube's strconv.Atoi), else undefined. */
function intValue(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?[0-9]+$/.test(value)) return undefined;
  return Number(value);
}
