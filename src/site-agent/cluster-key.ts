import type { ClusterRef } from '../apimachinery/cluster-ref.js';

/**
 * A virtual cluster's key on a site: `<tenant>:<namespace>:<vk8s name>` (names are DNS labels,
 * so `:` cannot occur in them). The Service data plane and the site's packet filter both name
 * a cluster so: the filter lets a cluster's pods reach what the data plane serves it.
 */
export function clusterKeyOf(cluster: ClusterRef): string {
  return `${cluster.tenant}:${cluster.namespace}:${cluster.name}`;
}
