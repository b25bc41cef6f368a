import type { ProxyEndpoints, ProxyService } from './proxy-model.js';

/**
 * Service names for the pods of one virtual cluster on a site, served by Debian's dnsmasq
 * (pure: the hosts file, dnsmasq's arguments and a pod's resolv.conf).
 *
 * Isolation: dnsmasq has no views — one process answers every client the same — and two
 * tenants' clusters may both have a `web.default`. So each cluster on the site gets its own
 * dnsmasq bound to its own link-local listener address in the site's namespace, and each pod's
 * resolv.conf names its cluster's listener. The site's packet filter lets only that cluster's
 * pods reach the listener (`service-destinations.ts`, `runtimes/runc/network/`): a pod of
 * another cluster gets no answer at all.
 *
 * Names (pods' resolv.conf: runtimes/runc/pod-dns.ts): `<service>.<namespace>.svc.cluster.local` and `<service>.<namespace>`; the bare
 * `<service>` resolves through the pod's search path (`<its namespace>.svc.cluster.local`
 * first), as in Kubernetes — a bare name in the hosts file would be ambiguous across
 * namespaces. A headless Service's names give its ready endpoints' addresses.
 */

const CLUSTER_DOMAIN = 'cluster.local';
/** The group dnsmasq runs as, which alone may read the hosts files besides root. */
export const DNS_GROUP = 'nogroup';

/** The cluster's hosts file (sorted), for dnsmasq's `--hostsdir`: re-read on change, no signal needed. */
export function clusterHostsFile(services: readonly ProxyService[], endpoints: readonly ProxyEndpoints[]): string {
  const lines: string[] = [];
  for (const service of services) {
    const names = `${service.name}.${service.namespace}.svc.${CLUSTER_DOMAIN} ${service.name}.${service.namespace}`;
    if (service.clusterIP !== '' && service.clusterIP !== 'None') {
      lines.push(`${service.clusterIP} ${names}`);
      continue;
    }
    const own = endpoints.find((e) => e.cluster === service.cluster && e.namespace === service.namespace && e.name === service.name);
    for (const ip of new Set(own?.subsets.flatMap((s) => s.ready) ?? [])) lines.push(`${ip} ${names}`);
  }
  return lines.sort().map((line) => `${line}\n`).join('');
}

export interface DnsmasqPaths {
  /** The cluster's listener address on the site bridge. */
  readonly listenAddress: string;
  /** A folder holding the cluster's hosts file (and nothing else). */
  readonly hostsDir: string;
  readonly pidFile: string;
}

/** dnsmasq's arguments: in the foreground, only the hosts folder, no upstream (a site routes nothing out). */
export function dnsmasqArguments(paths: DnsmasqPaths): string[] {
  return [
    '--keep-in-foreground',
    '--conf-file=/dev/null',
    '--no-resolv',
    '--no-hosts',
    '--no-poll',
    `--hostsdir=${paths.hostsDir}`,
    `--listen-address=${paths.listenAddress}`,
    '--bind-interfaces',
    `--local=/${CLUSTER_DOMAIN}/`,
    '--domain-needed',
    // Answers are not cached by clients: a changed Service is seen at once.
    '--local-ttl=0',
    '--log-facility=-',
    `--pid-file=${paths.pidFile}`,
    // Unprivileged once its socket is bound; the hosts folder is readable by this group only.
    '--user=nobody',
    `--group=${DNS_GROUP}`,
  ];
}
