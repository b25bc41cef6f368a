import type { ClusterRef } from '../site-api/site-api-types.js';

/**
 * The agent's key of a pod: `tenant/namespace/vk8s/name`. A virtual cluster has one
 * Kubernetes namespace (its platform namespace), so these four name a pod platform-wide.
 */
export function podKeyOf(cluster: ClusterRef, name: string): string {
  return `${cluster.tenant}/${cluster.namespace}/${cluster.name}/${name}`;
}
