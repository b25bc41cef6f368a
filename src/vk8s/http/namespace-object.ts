import type { KubeObject } from '../../apimachinery/object.js';
import type { NamespaceMetadata } from '../namespace-metadata.js';
import type { ClusterRequestContext } from './resource-request.js';

/**
 * A virtual cluster's one Kubernetes namespace: the platform namespace its virtual_k8s object
 * lives in, Active for as long as the cluster exists, with the labels and annotations users set
 * on it. Its resourceVersion is the newer of the virtual_k8s object's and its metadata's.
 */
export function namespaceObject(context: ClusterRequestContext, metadata: NamespaceMetadata = {}, revision?: number): KubeObject {
  const resourceVersion = revision === undefined || revision < Number(context.resourceVersion) ? context.resourceVersion : String(revision);
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: context.cluster.namespace,
      uid: context.uid,
      resourceVersion,
      creationTimestamp: context.createdAt,
      ...(metadata.labels === undefined || Object.keys(metadata.labels).length === 0 ? {} : { labels: { ...metadata.labels } }),
      ...(metadata.annotations === undefined || Object.keys(metadata.annotations).length === 0 ? {} : { annotations: { ...metadata.annotations } }),
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}
