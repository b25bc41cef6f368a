import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';

/** The owner reference marked `controller: true`, if any. */
export function controllerRefOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** Whether `object` is controlled by `owner` (an object, or its uid). */
export function isControlledBy(object: KubeObject, owner: KubeObject | string | undefined): boolean {
  const uid = typeof owner === 'string' || owner === undefined ? owner : owner.metadata.uid;
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

/** The controller reference a controller puts on what it creates (blocking foreground deletion, as kube). */
export function controllerRef(owner: KubeObject): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}
