import type { PodSpec } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** A pod condition as the controllers read it. */
export interface PodCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
  readonly lastProbeTime?: string | null;
}

/** The parts of a core/v1 PodStatus the controllers read. */
export interface PodStatusView {
  readonly phase?: string;
  readonly podIP?: string;
  readonly conditions?: readonly PodCondition[];
  readonly containerStatuses?: ReadonlyArray<{ readonly restartCount?: number }>;
  readonly initContainerStatuses?: ReadonlyArray<{ readonly restartCount?: number }>;
}

export function podStatusOf(pod: KubeObject): PodStatusView {
  return typeof pod.status === 'object' && pod.status !== null ? pod.status : {};
}

export function podSpecOf(pod: KubeObject): PodSpec {
  return (typeof pod.spec === 'object' && pod.spec !== null ? pod.spec : {}) as PodSpec;
}

/** The pod's phase; '' before anyone set one. */
export function podPhase(pod: KubeObject): string {
  return podStatusOf(pod).phase ?? '';
}

export function podConditionOf(pod: KubeObject, type: string): PodCondition | undefined {
  return podStatusOf(pod).conditions?.find((c) => c.type === type);
}

/** kube's IsPodReady: condition Ready is True. */
export function isPodReady(pod: KubeObject): boolean {
  return podConditionOf(pod, 'Ready')?.status === 'True';
}

/**
 * kube's IsPodAvailable: ready for at least `minReadySeconds` (ready at all when 0), judged
 * from the Ready condition's lastTransitionTime.
 */
export function isPodAvailable(pod: KubeObject, minReadySeconds: number, now: Date): boolean {
  const ready = podConditionOf(pod, 'Ready');
  if (ready?.status !== 'True') return false;
  if (minReadySeconds <= 0) return true;
  const since = Date.parse(ready.lastTransitionTime ?? '');
  return Number.isFinite(since) && since + minReadySeconds * 1000 < now.getTime();
}

/** Marked for deletion (graceful termination under way). */
export function isTerminating(object: KubeObject): boolean {
  return object.metadata.deletionTimestamp !== undefined;
}

/** kube's IsPodActive: not finished and not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  return phase !== 'Succeeded' && phase !== 'Failed' && !isTerminating(pod);
}

/** Container restarts of the pod (init containers included), as kube's job controller sums them. */
export function restartCount(pod: KubeObject): number {
  const status = podStatusOf(pod);
  return [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].reduce((n, c) => n + (c.restartCount ?? 0), 0);
}
