import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';

/** A pod condition as the controllers read it. */
export interface PodCondition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
  readonly lastProbeTime?: string | null;
}

export interface PodStatusView {
  readonly phase?: string;
  readonly conditions?: readonly PodCondition[];
  readonly containerStatuses?: ReadonlyArray<{ readonly restartCount?: number }>;
}

export function podStatusOf(pod: KubeObject): PodStatusView {
  return (typeof pod.status === 'object' && pod.status !== null ? pod.status : {});
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

/** kube's IsPodActive: not finished and not being deleted. */
export function isPodActive(pod: KubeObject): boolean {
  const phase = podStatusOf(pod).phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && pod.metadata.deletionTimestamp === undefined;
}

/** The owner reference marked `controller: true`, if any. */
export function controllerRefOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `object` is controlled by the object with `uid`. */
export function isControlledBy(object: KubeObject, uid: string | undefined): boolean {
  return uid !== undefined && controllerRefOf(object)?.uid === uid;
}

/** The owner reference of `kind` (controlling or not): a Deployment's site ReplicaSets all name it, one of them as controller. */
export function ownerRefOfKind(object: KubeObject, kind: string): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.kind === kind);
}

/** Whether `object` has an owner reference (controlling or not) to the object with `uid`. */
export function isOwnedBy(object: KubeObject, uid: string | undefined): boolean {
  return uid !== undefined && (object.metadata.ownerReferences ?? []).some((r) => r.uid === uid);
}
