import type { ClusterId } from './proxy-model.js';
import type { ProxyPlan } from './proxy-plan.js';

/** What a pod may open on the site's own addresses for its cluster's data plane: a name server's port, a Service frontend. */
export interface ServiceDestination {
  readonly address: string;
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
}

/** The port every cluster's name server answers on (UDP, and TCP for long answers). */
const DNS_PORT = 53;

/**
 * By virtual cluster, the destinations of its data plane on the site (pure): its name server
 * (`nameservers`, for every cluster with pods or Services here) and each frontend of the plan
 * that routes it. The site's packet filter lets a cluster's pods open these and no other
 * cluster's: two clusters sharing a ClusterIP and port both get it (the proxy tells them apart
 * by source).
 */
export function clusterDestinations(plan: Pick<ProxyPlan, 'frontends'>, nameservers: ReadonlyMap<ClusterId, string>): Map<ClusterId, ServiceDestination[]> {
  const byCluster = new Map<ClusterId, ServiceDestination[]>();
  const add = (cluster: ClusterId, destination: ServiceDestination): void => {
    const list = byCluster.get(cluster) ?? [];
    if (!list.some((d) => d.address === destination.address && d.protocol === destination.protocol && d.port === destination.port)) list.push(destination);
    byCluster.set(cluster, list);
  };
  for (const [cluster, address] of [...nameservers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    add(cluster, { address, protocol: 'udp', port: DNS_PORT });
    add(cluster, { address, protocol: 'tcp', port: DNS_PORT });
  }
  for (const frontend of plan.frontends) for (const route of frontend.routes) add(route.cluster, { address: frontend.address, protocol: 'tcp', port: frontend.port });
  return byCluster;
}
