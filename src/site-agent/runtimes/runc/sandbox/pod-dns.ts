import type { PodDNSConfig, PodSpec } from '../../../../api/pod-spec-types.js';

const CLUSTER_DOMAIN = 'cluster.local';
/** glibc reads at most 3 name servers and (before 2.26) 6 search domains; kubelet enforces the same. */
const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 6;

/**
 * A pod's /etc/resolv.conf as kubelet writes it, for its `dnsPolicy` and `dnsConfig` (pure):
 * - `ClusterFirst` (the default) and `ClusterFirstWithHostNet`: the cluster's name server on
 *   the site, the search path `<ns>.svc.cluster.local svc.cluster.local cluster.local` and
 *   `ndots:5`, then `dnsConfig` merged in (name servers and searches appended, options
 *   replaced by name);
 * - `None`: `dnsConfig` alone;
 * - `Default`: kubelet would copy the node's resolv.conf, but a site routes nothing out, so
 *   no outside server is reachable: `dnsConfig` alone, as `None`.
 */
export function podResolvConf(spec: PodSpec, namespace: string, clusterNameserver: string): string {
  const policy = spec.dnsPolicy ?? 'ClusterFirst';
  const config: PodDNSConfig = spec.dnsConfig ?? {};
  const clusterFirst = policy === 'ClusterFirst' || policy === 'ClusterFirstWithHostNet';
  const nameservers = [...(clusterFirst ? [clusterNameserver] : []), ...(config.nameservers ?? [])];
  const searches = [...(clusterFirst ? [`${namespace}.svc.${CLUSTER_DOMAIN}`, `svc.${CLUSTER_DOMAIN}`, CLUSTER_DOMAIN] : []), ...(config.searches ?? [])];
  const options = new Map<string, string | undefined>(clusterFirst ? [['ndots', '5']] : []);
  for (const option of config.options ?? []) if ((option.name ?? '') !== '') options.set(option.name as string, option.value);
  const lines = [
    ...[...new Set(nameservers)].slice(0, MAX_NAMESERVERS).map((server) => `nameserver ${server}`),
    ...(searches.length > 0 ? [`search ${[...new Set(searches)].slice(0, MAX_SEARCHES).join(' ')}`] : []),
    ...(options.size > 0 ? [`options ${[...options].map(([name, value]) => (value === undefined ? name : `${name}:${value}`)).join(' ')}`] : []),
  ];
  return lines.map((line) => `${line}\n`).join('');
}
