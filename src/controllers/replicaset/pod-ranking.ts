import type { PodSpec } from '../../api/pod-spec-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { isPodReady, podConditionOf, podStatusOf } from '../runtime/pod-state.js';

const PHASE_ORDER: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Which `count` pods a ReplicaSet deletes when it shrinks (kube's getPodsToDelete with
 * ActivePodsWithRanks): unscheduled before scheduled, Pending before Unknown before Running,
 * not ready before ready, pods sharing a node with more of their siblings first, ready for
 * less time first, more container restarts first, newer first.
 */
export function podsToDelete(pods: readonly KubeObject[], count: number): KubeObject[] {
  if (count >= pods.length) return [...pods];
  const perNode = new Map<string, number>();
  for (const pod of pods) {
    const node = nodeOf(pod);
    if (node !== '') perNode.set(node, (perNode.get(node) ?? 0) + 1);
  }
  const rank = (pod: KubeObject): number => perNode.get(nodeOf(pod)) ?? 0;
  return [...pods].sort((a, b) => compareForDeletion(a, b, rank)).slice(0, count);
}

/** Negative when `a` should go before `b`. */
function compareForDeletion(a: KubeObject, b: KubeObject, rank: (pod: KubeObject) => number = () => 0): number {
  const aNode = nodeOf(a) !== '';
  const bNode = nodeOf(b) !== '';
  if (aNode !== bNode) return aNode ? 1 : -1;
  const phase = (PHASE_ORDER[podStatusOf(a).phase ?? ''] ?? 0) - (PHASE_ORDER[podStatusOf(b).phase ?? ''] ?? 0);
  if (phase !== 0) return phase;
  const aReady = isPodReady(a);
  const bReady = isPodReady(b);
  if (aReady !== bReady) return aReady ? 1 : -1;
  const ranks = rank(b) - rank(a);
  if (ranks !== 0) return ranks;
  if (aReady && bReady) {
    const aSince = podConditionOf(a, 'Ready')?.lastTransitionTime ?? '';
    const bSince = podConditionOf(b, 'Ready')?.lastTransitionTime ?? '';
    if (aSince !== bSince) return aSince > bSince ? -1 : 1;
  }
  const restarts = restartsOf(b) - restartsOf(a);
  if (restarts !== 0) return restarts;
  const aCreated = a.metadata.creationTimestamp ?? '';
  const bCreated = b.metadata.creationTimestamp ?? '';
  if (aCreated !== bCreated) return aCreated > bCreated ? -1 : 1;
  return 0;
}

function nodeOf(pod: KubeObject): string {
  return specOf<PodSpec>(pod).nodeName ?? '';
}

function restartsOf(pod: KubeObject): number {
  return Math.max(0, ...(podStatusOf(pod).containerStatuses ?? []).map((s) => s.restartCount ?? 0));
}
