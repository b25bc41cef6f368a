import type { ResourceType } from '../apimachinery/resource-type.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';

/**
 * Where virtual-cluster objects live in the store:
 * `/vk8s/<group or "core">/<resource>/<tenant>/<namespace>/<vk8s>/<name>`.
 * Resource first, so one watch cache per resource serves every cluster of every tenant
 * (kube-apiserver's cacher is per resource too); the cluster's part of the key is what
 * keeps tenants apart in lists and watches.
 */
export function resourcePrefix(resource: Pick<ResourceType, 'group' | 'resource'>): string {
  return `/vk8s/${resource.group === '' ? 'core' : resource.group}/${resource.resource}/`;
}

export function clusterPrefix(resource: Pick<ResourceType, 'group' | 'resource'>, cluster: ClusterRef): string {
  return `${resourcePrefix(resource)}${cluster.tenant}/${cluster.namespace}/${cluster.name}/`;
}

export function objectKey(resource: Pick<ResourceType, 'group' | 'resource'>, cluster: ClusterRef, name: string): string {
  return `${clusterPrefix(resource, cluster)}${name}`;
}
