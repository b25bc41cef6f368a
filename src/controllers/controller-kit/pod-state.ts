import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';
import { isControlledBy as isControlledByUid } from '../runtime/pod-state.js';

/** The parts of a core/v1 PodStatus the controllers read. */
export interface PodStatusView {
  phase?: string;
  podIP?: string;
  conditions?: Array<{ type?: string; status?: string }>;
  containerStatuses?: Array<{ restartCount?: number }>;
  initContainerStatuses?: Array<{ restartCount?: number }>;
}

export function podStatusOf(pod: KubeObject): PodStatusView {
  return (typeof pod.status === 'object' && pod.status !== null ? pod.status : {});
}

export function podSpecOf(pod: KubeObject): PodSpec {
  return (typeof pod.spec === 'object' && pod.spec !== null ? pod.spec : {}) as PodSpec;
}

/** The pod's phase; '' before anyone set one. */
export function podPhase(pod: KubeObject): string {
  return podStatusOf(pod).phase ?? '';
}

export { controllerRefOf, isPodReady } from '../runtime/pod-state.js';

/** Marked for deletion (graceful termination under way). */
export function isTerminating(object: KubeObject): boolean {
  return object.metadata.deletionTimestamp !== undefined;
}

/** Container restarts of the pod (init containers included), as kube's job controller sums them. */
export function restartCount(pod: KubeObject): number {
  const status = podStatusOf(pod);
  return [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])].reduce((n, c) => n + (c.restartCount ?? 0), 0);
}

/** The site a pod (or PVC, or any per-site object) was made for: its `svc.io/siteName` label. */
export function siteOf(object: KubeObject): string | undefined {
  return object.metadata.labels?.[POD_SITE_LABEL];
}

/** Whether `object`'s controller is `owner` (same uid). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return isControlledByUid(object, owner.metadata.uid);
}

/** The controller reference a controller puts on what it creates (blocking foreground deletion, as kube). */
export function controllerRef(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}
