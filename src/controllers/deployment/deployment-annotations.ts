/** The annotations kube's deployment controller keeps on Deployments and their ReplicaSets. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const ROLLBACK_TO = 'deprecated.deployment.rollback.to';
/** kube's limit on the length of the revision-history annotation. */
const MAX_REVISION_HISTORY_CHARS = 2000;

/**
 * Deployment annotations never copied to its ReplicaSets: kube's skip list, and `platform`,
 * the ones the platform's controller writes on the Deployment itself (the per-site status —
 * copied, every change of it would rewrite every site's ReplicaSet).
 */
export function isSkippedAnnotation(key: string, platform: ReadonlySet<string>): boolean {
  return key === LAST_APPLIED || key === REVISION_ANNOTATION || key === REVISION_HISTORY_ANNOTATION || key === DESIRED_REPLICAS_ANNOTATION || key === MAX_REPLICAS_ANNOTATION || key === ROLLBACK_TO || platform.has(key);
}

/**
 * The annotations of the Deployment's new ReplicaSet (kube's SetNewReplicaSetAnnotations):
 * the Deployment's own (but the skipped ones) added or updated; the revision raised to
 * `revision` when lower — a ReplicaSet brought back by a rollback keeps its earlier numbers
 * in `revision-history` (comma-separated, oldest dropped past 2000 characters).
 */
export function newReplicaSetAnnotations(current: Readonly<Record<string, string>>, deployment: Readonly<Record<string, string>>, revision: number, platform: ReadonlySet<string>): Record<string, string> {
  const next: Record<string, string> = { ...current };
  for (const [key, value] of Object.entries(deployment)) if (!isSkippedAnnotation(key, platform)) next[key] = value;
  const previous = current[REVISION_ANNOTATION];
  const previousNumber = previous === undefined ? 0 : Number(previous) || 0;
  if (previousNumber < revision) {
    next[REVISION_ANNOTATION] = String(revision);
    if (previous !== undefined) {
      const history = (current[REVISION_HISTORY_ANNOTATION] ?? '').split(',').filter((r) => r !== '');
      history.push(previous);
      while (history.join(',').length > MAX_REVISION_HISTORY_CHARS && history.length > 1) history.shift();
      next[REVISION_HISTORY_ANNOTATION] = history.join(',');
    }
  }
  return next;
}

/** The scale annotations kube sets whenever it sizes a ReplicaSet of a Deployment. */
export function replicasAnnotations(desired: number, max: number): Record<string, string> {
  return { [DESIRED_REPLICAS_ANNOTATION]: String(desired), [MAX_REPLICAS_ANNOTATION]: String(max) };
}
