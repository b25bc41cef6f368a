import { join } from 'node:path';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Timers } from '../../common/timers.js';
import type { Logger } from '../../observability/logger.js';
import { EventSender } from '../event-sender.js';
import { IpCommand, type Program } from '../host/index.js';
import type { NodeDirectory } from '../node-directory.js';
import type { SiteApiClient } from '../site-api-client.js';
import { PlacedServiceFeed } from './placed-service-feed.js';
import type { ClusterId } from './proxy-model.js';
import type { ServiceDestination } from './service-destinations.js';
import { SiteServiceProxy, type SitePod } from './site-service-proxy.js';

/** What a site's runtime tells its Service data plane and asks of it. */
export interface ServicePlane {
  /**
   * The site's pods now, with their readiness by the site's own probes: their addresses are
   * what may reach their own cluster's Services, and they are the site's own endpoints of the
   * Services selecting them. The site's proxy plans nothing before the first call: the runtime
   * calls once it has adopted the pods an earlier agent left.
   */
  setPods(site: string, pods: readonly SitePod[]): void;
  /** Syncs the site's proxy and name servers (the runtime's periodic resync). */
  resync(site: string): void;
  /** The name server of `cluster`'s pods on `site`, running when this resolves; `podIP` may reach the cluster's Services from then on. */
  nameserverFor(site: string, cluster: ClusterRef, podIP: string): Promise<string>;
  /** Stops following the placed objects; every proxy and name server keeps running for the next agent to adopt. */
  detach(): Promise<void>;
  /** Stops following the placed objects and stops every proxy and name server. */
  close(): Promise<void>;
}

/** A site the data plane runs in: its network namespace, and whether an address is in its pod network. */
interface ServicePlaneSite {
  readonly netns: string;
  readonly contains: (ip: string) => boolean;
}

/**
 * The Service data plane of an agent's runc sites: one feed of the placed Services and
 * Endpoints (long polls on the site API), and per site a {@link SiteServiceProxy} fed by it
 * and by the site's runtime.
 */
export function startServicePlane(context: {
  readonly home: string;
  readonly logger: Logger;
  readonly programs: { readonly ip: string; readonly haproxy: Program; readonly dnsmasq: Program };
  readonly client: SiteApiClient;
  readonly nodes: NodeDirectory;
  readonly timers: Timers;
  readonly sites: ReadonlyMap<string, ServicePlaneSite>;
  /** Hears what each cluster's pods on a site may open of its data plane (the site's packet filter), before the proxy changes. */
  readonly destinations?: (site: string, byCluster: ReadonlyMap<ClusterId, readonly ServiceDestination[]>) => Promise<void>;
}): ServicePlane {
  const { client, timers, nodes, logger, programs, destinations } = context;
  const events = new EventSender((items) => client.postServiceEvents(items), timers, logger);
  const proxies = new Map<string, SiteServiceProxy>();
  const feed = new PlacedServiceFeed((kind, wait) => client.placedObjects(kind, wait), () => proxies.forEach((proxy) => proxy.trigger()), timers, logger);
  const ip = new IpCommand(programs.ip);
  for (const [name, site] of context.sites) {
    proxies.set(
      name,
      new SiteServiceProxy({
        site: name,
        netns: site.netns,
        dir: join(context.home, 'runc', name, 'service-proxy'),
        ip,
        haproxy: programs.haproxy,
        dnsmasq: programs.dnsmasq,
        feed,
        onSite: (address) => (address.nodeName === undefined ? site.contains(address.ip) : nodes.lookup(address.nodeName)?.site === name),
        event: (report) => events.add(report),
        ...(destinations === undefined ? {} : { destinations: (byCluster) => destinations(name, byCluster) }),
        logger,
      }),
    );
  }
  const started = feed.start();
  const proxyOf = (site: string): SiteServiceProxy => {
    const proxy = proxies.get(site);
    if (proxy === undefined) throw new Error(`site ${site} has no Service proxy`);
    return proxy;
  };
  return {
    setPods: (site, pods) => proxies.get(site)?.setPods(pods),
    resync: (site) => proxies.get(site)?.trigger(),
    async nameserverFor(site, cluster, podIP) {
      // The first lists decide which ClusterIPs a pod's cluster has: wait for them (briefly).
      let cancel: (() => void) | undefined;
      await Promise.race([started, new Promise<void>((resolve) => (cancel = timers.schedule(resolve, 5000)))]);
      cancel?.();
      return proxyOf(site).nameserverFor(cluster, podIP);
    },
    async detach() {
      await feed.close();
      await Promise.all([...proxies.values()].map((proxy) => proxy.detach()));
      await events.flush();
    },
    async close() {
      await feed.close();
      await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
      await events.flush();
    },
  };
}
