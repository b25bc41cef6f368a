import type { KubeObject } from '../../apimachinery/object.js';

/**
 * An object as a metadata-only informer keeps it (client-go's metadata informers, whose
 * items are metav1.PartialObjectMetadata): its apiVersion, kind and metadata, without
 * `managedFields` (the transform controllers commonly set on their informers). Labels,
 * annotations and owner references are shared with `object`, which must be read-only.
 */
export function partialObjectMetadata(object: KubeObject): KubeObject {
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { apiVersion: object.apiVersion, kind: object.kind, metadata };
}
