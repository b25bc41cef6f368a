import { Counter, type Registry } from 'prom-client';
import type { SiteFirewall } from './network/index.js';

/** The metric of the sites' packet filters. */
const DROPPED = 'edgeplane_site_network_dropped_packets_total';

/**
 * Registers `edgeplane_site_network_dropped_packets_total{site, cluster, namespace, pod,
 * reason}` on `registry`: each site filter's drop counters, read from the kernel at each
 * scrape (they count while no agent runs, and survive agent restarts). `reason` is
 * `mac_spoofed`, `arp_spoofed`, `ip_spoofed`, `ipv6`, `other_protocol` or `isolated` (a
 * destination outside the pod's virtual cluster); a site's `unknown_port` and
 * `unknown_source` carry no pod. Counters still at zero are left out.
 */
export function registerSiteNetworkMetrics(registry: Registry, sites: ReadonlyMap<string, { readonly network: { readonly filter: SiteFirewall } }>): void {
  new Counter({
    name: DROPPED,
    help: 'Packets the site network dropped, by site, the pod that sent them (virtual cluster, namespace, name) and reason.',
    labelNames: ['site', 'cluster', 'namespace', 'pod', 'reason'],
    registers: [registry],
    async collect() {
      const counts = await Promise.all([...sites].map(async ([site, { network }]) => ({ site, drops: await network.filter.drops().catch(() => []) })));
      this.reset();
      for (const { site, drops } of counts) {
        for (const { pod, reason, packets } of drops) {
          if (packets > 0) this.inc({ site, cluster: pod?.cluster ?? '', namespace: pod?.namespace ?? '', pod: pod?.name ?? '', reason }, packets);
        }
      }
    },
  });
}
