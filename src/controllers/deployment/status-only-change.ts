import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { REVISION_ANNOTATION } from './deployment-annotations.js';
import { SITE_STATUS_ANNOTATIONS } from './deployment-status.js';

/** Annotations the Deployment controller writes itself (with the status, through /status). */
const CONTROLLER_ANNOTATIONS: ReadonlySet<string> = new Set([...SITE_STATUS_ANNOTATIONS, REVISION_ANNOTATION]);

function userAnnotations(object: KubeObject): Record<string, string> {
  return Object.fromEntries(Object.entries(object.metadata.annotations ?? {}).filter(([key]) => !CONTROLLER_ANNOTATIONS.has(key)));
}

/**
 * Pure: did an update of a Deployment change only what its controller writes (status, the
 * revision and per-site annotations)? Such an update is usually the controller's own write:
 * it is synced again after the usual coalescing delay instead of at once, so a Deployment
 * over thousands of sites does not resync itself in a loop. Anything else a user can change
 * (spec, labels, other annotations such as placement, deletion, finalizers) counts.
 */
export function onlyStatusChanged(old: KubeObject, updated: KubeObject): boolean {
  const a = old.metadata;
  const b = updated.metadata;
  return (
    a.generation === b.generation &&
    a.deletionTimestamp === b.deletionTimestamp &&
    jsonEqual(a.labels ?? {}, b.labels ?? {}) &&
    jsonEqual(a.finalizers ?? [], b.finalizers ?? []) &&
    jsonEqual(a.ownerReferences ?? [], b.ownerReferences ?? []) &&
    jsonEqual(userAnnotations(old), userAnnotations(updated)) &&
    jsonEqual(old['spec'], updated['spec'])
  );
}
