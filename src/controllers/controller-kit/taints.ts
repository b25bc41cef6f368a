import type { Toleration } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** The taint kube's node lifecycle controller (and ours, site-plane/site-lifecycle.ts) puts on a Node whose kubelet (agent) stopped reporting. */
export const UNREACHABLE_TAINT_KEY = 'node.kubernetes.io/unreachable';

/** A Node's taint (core/v1 Taint). */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
  readonly timeAdded?: string;
}

/** A Node's `spec.taints` (empty without). */
export function taintsOf(node: KubeObject): readonly Taint[] {
  return (node.spec as { taints?: Taint[] } | undefined)?.taints ?? [];
}

/**
 * kube's Toleration.ToleratesTaint: the effects match (an empty effect tolerates every
 * effect), the keys match (an empty key with `Exists` tolerates every key), and the operator
 * `Exists`, or `Equal` (the default) with the same value.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? 'Equal') {
    case 'Exists':
      return true;
    case 'Equal':
    case '':
      return (toleration.value ?? '') === (taint.value ?? '');
    default:
      return false;
  }
}

/**
 * kube's TaintToleration filter: the first of the node's NoSchedule and NoExecute taints that
 * none of the pod's tolerations tolerates, as the scheduler names it
 * ("node(s) had taint {node.kubernetes.io/unreachable: }, that the pod didn't tolerate"); undefined when all are tolerated.
 */
export function untoleratedTaintReason(node: KubeObject, tolerations: readonly Toleration[]): string | undefined {
  const taint = taintsOf(node).find((t) => (t.effect === 'NoSchedule' || t.effect === 'NoExecute') && !tolerations.some((tol) => toleratesTaint(tol, t)));
  return taint === undefined ? undefined : `node(s) had taint {${taint.key}: ${taint.value ?? ''}}, that the pod didn't tolerate`;
}
