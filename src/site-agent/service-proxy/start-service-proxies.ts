import { join } from 'node:path';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Timers } from '../../common/timers.js';
import type { Logger } from '../../observability/logger.js';
import type { RegisterSite } from '../../site-api/site-api-types.js';
import { EventSender } from '../event-sender.js';
import type { NodeDirectory } from '../node-directory.js';
import { PlacedServiceFeed } from './placed-service-feed.js';
import type { SiteApiClient } from '../site-api-client.js';
import { IpCommand } from '../host/ip-command.js';
import { cidrContains } from '../runtimes/runc/network/ipv4-cidr.js';
import type { RuncSiteParts } from '../runtimes/runc/pod-parts.js';
import { findServicePrograms, type RuntimePrograms } from '../runtimes/runc/runtime-programs.js';
import { SiteServiceProxy } from './site-service-proxy.js';

/** What the runtime holds of a site's proxy. */
interface SiteProxyHandle {
  trigger(): void;
  close(): Promise<void>;
}

/**
 * The Service data plane of an agent's runc sites: one feed of the placed Services and
 * Endpoints (long polls on the site API), and per site a {@link SiteServiceProxy} fed by it
 * and by the runtime's pods. Undefined, with a warning naming what to install, when HAProxy
 * or dnsmasq is missing.
 */
export function startServiceProxies(context: {
  readonly options: { readonly home: string; readonly sites: readonly RegisterSite[]; readonly logger: Logger };
  readonly programs: RuntimePrograms;
  readonly client: SiteApiClient;
  readonly nodes: NodeDirectory;
  readonly timers: Timers;
  readonly sites: ReadonlyMap<string, RuncSiteParts>;
  readonly runtime: () => { podAddresses(site: string): ReadonlyMap<string, readonly string[]> };
}): { proxies: ReadonlyMap<string, SiteProxyHandle>; nameserverFor(site: string, cluster: ClusterRef): Promise<string> } | undefined {
  const { options, client, timers, nodes } = context;
  const found = findServicePrograms();
  if ('missing' in found) {
    options.logger.warn({ missing: found.missing }, 'runc sites run without their Service data plane: Services carry no traffic and no name resolves in pods');
    return undefined;
  }
  const events = new EventSender((items) => client.postServiceEvents(items), timers, options.logger);
  const proxies = new Map<string, SiteServiceProxy>();
  const feed = new PlacedServiceFeed((kind, wait) => client.placedObjects(kind, wait), () => proxies.forEach((proxy) => proxy.trigger()), timers, options.logger);
  const ip = new IpCommand(context.programs.ip);
  for (const [name, site] of context.sites) {
    proxies.set(
      name,
      new SiteServiceProxy({
        site: name,
        netns: site.network.netns,
        dir: join(options.home, 'runc', name, 'service-proxy'),
        ip,
        haproxy: found.haproxy,
        dnsmasq: found.dnsmasq,
        feed,
        pods: () => context.runtime().podAddresses(name),
        onSite: (address) => (address.nodeName === undefined ? cidrContains(site.network.cidr, address.ip) : nodes.lookup(address.nodeName)?.site === name),
        event: (report) => events.add(report),
        logger: options.logger,
      }),
    );
  }
  const started = feed.start();
  return {
    proxies: new Map(
      [...proxies].map(([name, proxy]): [string, SiteProxyHandle] => [
        name,
        {
          trigger: () => proxy.trigger(),
          close: async () => {
            await feed.close();
            await proxy.close();
            await events.flush();
          },
        },
      ]),
    ),
    async nameserverFor(site, cluster) {
      // The first lists decide which ClusterIPs a pod's cluster has: wait for them (briefly).
      await Promise.race([started, new Promise((resolve) => setTimeout(resolve, 5000))]);
      const proxy = proxies.get(site);
      if (proxy === undefined) throw new Error(`site ${site} has no Service proxy`);
      return proxy.nameserverFor(cluster);
    },
  };
}
