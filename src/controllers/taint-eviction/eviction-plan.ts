import type { PodSpec, Toleration } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { podStatusOf } from '../runtime/pod-state.js';
import { taintsOf, toleratesTaint } from '../controller-kit/taints.js';

/** What becomes of a pod bound to a node with NoExecute taints: kept, deleted now, or looked at again in `afterMs`. */
export type EvictionPlan = { readonly action: 'keep' } | { readonly action: 'evict' } | { readonly action: 'wait'; readonly afterMs: number };

const KEEP: EvictionPlan = { action: 'keep' };

/** kube's getMinTolerationTime over the tolerations that tolerate a taint: the least `tolerationSeconds`, undefined when none sets one (tolerated forever). */
function minTolerationSeconds(tolerations: readonly Toleration[]): number | undefined {
  let least: number | undefined;
  for (const t of tolerations) if (t.tolerationSeconds != null && (least === undefined || t.tolerationSeconds < least)) least = t.tolerationSeconds;
  return least;
}

/**
 * kube's NoExecuteTaintManager for one pod, with the platform's default turned around: a
 * NoExecute taint (an offline site's `node.kubernetes.io/unreachable`) evicts a pod only when
 * the pod chose it — a toleration of the taint with `tolerationSeconds` deletes it that long
 * after the taint's `timeAdded` (at once for 0 or less; the least of several). A pod that does
 * not tolerate the taint, or tolerates it without `tolerationSeconds`, is kept: kube deletes
 * the first at once (and its DefaultTolerationSeconds admission gives every pod 300 s), the
 * platform never moves an offline site's work unless asked. `workloadToleration` (what the
 * `svc.io/offline-eviction-seconds` annotation of the pod's workload stands for) counts for a
 * taint none of the pod's own tolerations tolerates: the pod's own word comes first. Time is
 * counted from the taint's `timeAdded` or `observingSince` (when the controller started
 * watching), whichever is later: a control-plane outage or a leader change never counts as time
 * the site was seen offline (the taint may be older than anything this controller observed).
 * Pods being deleted or finished, and pods of nodes without NoExecute taints, are kept.
 */
export function planEviction(pod: KubeObject, node: KubeObject | undefined, now: Date, workloadToleration?: Toleration, observingSince?: Date): EvictionPlan {
  const phase = podStatusOf(pod).phase;
  if (node === undefined || pod.metadata.deletionTimestamp !== undefined || phase === 'Succeeded' || phase === 'Failed') return KEEP;
  const tolerations = (pod.spec as PodSpec | undefined)?.tolerations ?? [];
  let due: number | undefined;
  for (const taint of taintsOf(node)) {
    if (taint.effect !== 'NoExecute') continue;
    const own = tolerations.filter((t) => toleratesTaint(t, taint));
    const fallback = workloadToleration !== undefined && toleratesTaint(workloadToleration, taint) ? [workloadToleration] : [];
    const seconds = minTolerationSeconds(own.length > 0 ? own : fallback);
    const added = Math.max(Date.parse(taint.timeAdded ?? ''), observingSince?.getTime() ?? Number.NEGATIVE_INFINITY);
    if (seconds === undefined || !Number.isFinite(added)) continue;
    const at = seconds <= 0 ? Number.NEGATIVE_INFINITY : added + seconds * 1000;
    if (due === undefined || at < due) due = at;
  }
  if (due === undefined) return KEEP;
  const left = due - now.getTime();
  return left <= 0 ? { action: 'evict' } : { action: 'wait', afterMs: left };
}

/** Whether a pod can ever be evicted by {@link planEviction}: it (or its workload's annotation) has a NoExecute toleration with `tolerationSeconds`. */
export function choosesEviction(pod: KubeObject, workloadToleration?: Toleration): boolean {
  return workloadToleration !== undefined || ((pod.spec as PodSpec | undefined)?.tolerations ?? []).some((t) => t.tolerationSeconds != null && ((t.effect ?? '') === '' || t.effect === 'NoExecute'));
}
