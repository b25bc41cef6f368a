import type { ClusterRef } from '../../apimachinery/cluster-ref.js';

/** Which object a controller works on: its cluster and name (the work queue's item). */
export interface ObjectKey {
  readonly cluster: ClusterRef;
  readonly name: string;
}

/** `tenant/namespace/vk8s`: a cluster as one string (names never contain "/"). */
export function clusterKeyOf(cluster: ClusterRef): string {
  return `${cluster.tenant}/${cluster.namespace}/${cluster.name}`;
}

/** `tenant/namespace/vk8s/name`: an object key as one string, for work queues. */
export function formatObjectKey(key: ObjectKey): string {
  return `${clusterKeyOf(key.cluster)}/${key.name}`;
}

/** The inverse of {@link formatObjectKey}; undefined for anything else. */
export function parseQueueKey(text: string): ObjectKey | undefined {
  const parts = text.split('/');
  if (parts.length !== 4 || parts.some((p) => p === '')) return undefined;
  const [tenant, namespace, name, object] = parts as [string, string, string, string];
  return { cluster: { tenant, namespace, name }, name: object };
}

/** The object key of a store key under a resource prefix (`<prefix><tenant>/<ns>/<vk8s>/<name>`). */
export function parseObjectKey(resourcePrefix: string, storeKey: string): ObjectKey | undefined {
  if (!storeKey.startsWith(resourcePrefix)) return undefined;
  return parseQueueKey(storeKey.slice(resourcePrefix.length));
}
