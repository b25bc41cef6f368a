import { join } from 'node:path';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { Logger } from '../../observability/logger.js';
import type { PodEventReport } from '../../site-api/site-api-types.js';
import { clusterHostsFile } from './cluster-dns.js';
import { ClusterDnsServers } from './cluster-dns-servers.js';
import { HaproxyProcess } from './haproxy-process.js';
import type { PlacedServiceFeed } from './placed-service-feed.js';
import { clusterIdOf, proxyEndpointsOf, proxyServiceOf, type ClusterId, type EndpointAddressView, type ProxyEndpoints, type ProxyService } from './proxy-model.js';
import { planProxy, type ProxyPlan } from './proxy-plan.js';
import type { IpCommand, Program } from '../host/index.js';
import { ServiceAddresses } from './service-addresses.js';
import { siteEndpoints, type LocalPod } from './local-endpoints.js';
import { clusterDestinations, type ServiceDestination } from './service-destinations.js';

export interface SiteServiceProxyOptions {
  readonly site: string;
  readonly netns: string;
  /** Where the proxy and DNS servers keep their files (`<site dir>/service-proxy`). */
  readonly dir: string;
  readonly ip: IpCommand;
  readonly haproxy: Program;
  readonly dnsmasq: Program;
  readonly feed: PlacedServiceFeed;
  /** Whether an endpoint address is a pod of this site. */
  readonly onSite: (address: EndpointAddressView) => boolean;
  /** An Event on a Service (sent in the agent's next batch). */
  readonly event: (report: PodEventReport) => void;
  /**
   * Hears, before the proxy and name servers change, what each cluster's pods may open on the
   * site's addresses (its name server, its Services' frontends): the site's packet filter.
   */
  readonly destinations?: (byCluster: ReadonlyMap<ClusterId, readonly ServiceDestination[]>) => Promise<void>;
  readonly logger: Logger;
}

interface ServiceRef {
  readonly cluster: ClusterRef;
  readonly name: string;
  readonly uid: string;
}

const idOf = (cluster: ClusterRef): ClusterId => clusterIdOf(cluster.tenant, cluster.namespace, cluster.name);

/**
 * A pod of the site as the Service data plane sees it: its virtual cluster and address (a source
 * its cluster's Services answer), and what decides its own endpoints (see local-endpoints.ts).
 */
export interface SitePod extends Omit<LocalPod, 'cluster'> {
  readonly cluster: ClusterRef;
}

/**
 * A runc site's Service data plane: the site's HAProxy (the Services and ready Endpoints
 * placed on the site, planned by `planProxy`), one dnsmasq per virtual cluster with pods or
 * Services here, and the addresses both listen on. The site's runtime tells it the site's pods
 * ({@link setPods}, {@link nameserverFor}) with their readiness by its own probes, which decides
 * the site's own endpoints (`siteEndpoints`); the placed-object feed tells it the Services and
 * Endpoints, which add what the site cannot know. Each change runs one sync; syncs never overlap
 * and a change during one runs another after it; none runs before both have spoken once. The
 * HAProxy and dnsmasq an earlier agent left running are adopted and reconciled in place, and
 * left running for the next agent by {@link detach}. What the proxy cannot do, or a refused
 * configuration, becomes a Warning Event on the Service (once per distinct message).
 */
export class SiteServiceProxy {
  private readonly haproxy: HaproxyProcess;
  private readonly dns: ClusterDnsServers;
  private readonly addresses: ServiceAddresses;
  private running: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private reported = new Set<string>();
  private ready: Promise<void> | undefined;
  /** The site's pod addresses, by virtual cluster. */
  private pods = new Map<ClusterId, string[]>();
  /** The site's pods as its runtime sees them (their readiness is the site's own). */
  private localPods: LocalPod[] = [];
  /** The runtime has told its pods once (it adopted those an earlier agent left). */
  private podsKnown = false;

  constructor(private readonly options: SiteServiceProxyOptions) {
    const dir = options.dir;
    this.haproxy = new HaproxyProcess({ haproxy: options.haproxy, ip: options.ip.path, netns: options.netns, dir: join(dir, 'haproxy') });
    this.dns = new ClusterDnsServers({ dnsmasq: options.dnsmasq, ip: options.ip.path, netns: options.netns, dir: join(dir, 'dns'), runDir: `/run/edgeplane-dns/${options.netns}`, logger: options.logger });
    this.addresses = new ServiceAddresses(options.ip, options.netns);
  }

  /** The site's pods now (their addresses are the proxy's allowed sources, per virtual cluster): syncs when they changed. */
  setPods(pods: readonly SitePod[]): void {
    const next = new Map<ClusterId, string[]>();
    for (const pod of pods) next.set(idOf(pod.cluster), [...(next.get(idOf(pod.cluster)) ?? []), pod.ip]);
    const local = pods.map((pod) => ({ ...pod, cluster: idOf(pod.cluster) })).sort((a, b) => (`${a.cluster}/${a.ip}` < `${b.cluster}/${b.ip}` ? -1 : 1));
    const key = (map: ReadonlyMap<ClusterId, readonly string[]>, view: readonly LocalPod[]): string =>
      JSON.stringify([[...map].map(([id, ips]) => [id, [...ips].sort()]).sort(), view]);
    if (this.podsKnown && key(next, local) === key(this.pods, this.localPods)) return;
    this.podsKnown = true;
    this.pods = next;
    this.localPods = local;
    this.trigger();
  }

  /**
   * The name server of `cluster`'s pods on this site, running before this resolves (a pod's
   * containers start after it, so their first lookup finds it). Also adds the pod's address
   * `podIP` to its cluster's proxy sources.
   */
  async nameserverFor(cluster: ClusterRef, podIP: string): Promise<string> {
    await this.start();
    const id = idOf(cluster);
    const known = this.pods.get(id) ?? [];
    if (!known.includes(podIP)) this.pods.set(id, [...known, podIP]);
    const address = this.dns.addressOf(id);
    await this.addresses.add([address]);
    // Before the first lists (an agent starting while the control plane is away) a running server keeps its names.
    await this.dns.ensure(id, this.options.feed.ready ? this.hostsOf(id) : undefined);
    // A proxy change that fails (an Event says why) must not keep the pod from starting.
    await this.sync().catch((error: unknown) => this.options.logger.warn({ site: this.options.site, err: error instanceof Error ? error.message : String(error) }, 'Service proxy sync failed'));
    return address;
  }

  /** Runs a sync soon (coalesced with one that is running): the placed Services or Endpoints changed, or a resync. */
  trigger(): void {
    void this.sync().catch((error: unknown) => this.options.logger.warn({ site: this.options.site, err: error instanceof Error ? error.message : String(error) }, 'Service proxy sync failed'));
  }

  /** Stops syncing and leaves HAProxy and the name servers running, for the next agent to adopt. */
  async detach(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
    this.haproxy.detach();
    this.dns.detach();
  }

  /** Stops syncing, HAProxy and the name servers. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.haproxy.stop(), this.dns.close()]);
    await this.running?.catch(() => undefined);
    // A sync that was under way may have started something after the stop above.
    await Promise.all([this.haproxy.stop(), this.dns.close()]);
  }

  /** Reads the site's Service addresses and adopts the HAProxy an earlier agent left running (once). */
  private start(): Promise<void> {
    this.ready ??= (async () => {
      await this.addresses.ensure();
      if (await this.haproxy.adopt()) this.options.logger.info({ site: this.options.site, pid: this.haproxy.pid }, 'Service proxy adopted');
    })();
    return this.ready;
  }

  /** One sync at a time; a call during one makes it run once more after. */
  private sync(): Promise<void> {
    if (this.running !== undefined) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          if (!this.closed) await this.syncOnce();
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private placed(): { services: ProxyService[]; endpoints: ProxyEndpoints[]; refs: Map<string, ServiceRef> } {
    const { feed, site, onSite } = this.options;
    const mine = (items: ReturnType<PlacedServiceFeed['items']>): Array<{ cluster: ClusterRef; object: KubeObject }> => items.filter((item) => item.sites.includes(site));
    const refs = new Map<string, ServiceRef>();
    const services = mine(feed.items('services')).map(({ cluster, object }) => {
      const service = proxyServiceOf(idOf(cluster), object);
      refs.set(`${service.cluster}:${service.namespace}:${service.name}`, { cluster, name: service.name, uid: object.metadata.uid ?? '' });
      return service;
    });
    const given = mine(feed.items('endpoints')).map(({ cluster, object }) => proxyEndpointsOf(idOf(cluster), object, onSite));
    return { services, endpoints: siteEndpoints(services, given, this.localPods, this.podsKnown), refs };
  }

  private hostsOf(cluster: ClusterId): string {
    const { services, endpoints } = this.placed();
    return clusterHostsFile(services.filter((s) => s.cluster === cluster), endpoints.filter((e) => e.cluster === cluster));
  }

  private async syncOnce(): Promise<void> {
    await this.start();
    // Until the Services and Endpoints are listed and the runtime has told its pods, what runs (adopted from an earlier agent)
    // stays as it is: a plan from half the picture would take endpoints out. The first lists, and the pods, sync.
    if (!this.options.feed.ready || !this.podsKnown) return;
    const { services, endpoints, refs } = this.placed();
    const pods = this.pods;
    const plan = planProxy({ services, endpoints, clusterPods: Object.fromEntries(pods) });
    // DNS for every cluster with pods here (their resolv.conf names it) or Services placed here.
    const clusters = new Set<ClusterId>([...pods.keys(), ...services.map((s) => s.cluster)]);
    for (const cluster of clusters) await this.addresses.add([this.dns.addressOf(cluster)]);
    await this.addresses.add(plan.frontends.map((f) => f.address));
    await this.options.destinations?.(clusterDestinations(plan, new Map([...clusters].map((cluster) => [cluster, this.dns.addressOf(cluster)]))));
    for (const cluster of clusters) {
      await this.dns.ensure(cluster, clusterHostsFile(services.filter((s) => s.cluster === cluster), endpoints.filter((e) => e.cluster === cluster)));
    }
    await this.dns.retain(clusters);
    await this.applyPlan(plan, refs);
    await this.addresses.retain(new Set([...plan.frontends.map((f) => f.address), ...this.dns.allocated()]));
    this.report(plan.problems.map((p) => ({ service: `${p.service.cluster}:${p.service.namespace}:${p.service.name}`, reason: 'ProxyConflict', message: p.message })), refs);
  }

  private async applyPlan(plan: ProxyPlan, refs: ReadonlyMap<string, ServiceRef>): Promise<void> {
    try {
      if (plan.frontends.length === 0) await this.haproxy.stop();
      else if (this.haproxy.pid === undefined) await this.haproxy.start(plan);
      else {
        const result = await this.haproxy.apply(plan);
        if (result.reloaded) this.options.logger.debug({ site: this.options.site, reasons: result.reasons }, 'Service proxy reloaded');
      }
    } catch (error) {
      const message = `the site proxy refused the change: ${error instanceof Error ? error.message : String(error)}`.slice(0, 1000);
      this.options.logger.warn({ site: this.options.site, err: message }, 'Service proxy change failed');
      this.report([...refs.keys()].map((service) => ({ service, reason: 'FailedToApplyProxy', message })), refs);
      throw error;
    }
  }

  /** Warning Events, once per distinct (Service, message) while it lasts. */
  private report(problems: ReadonlyArray<{ service: string; reason: string; message: string }>, refs: ReadonlyMap<string, ServiceRef>): void {
    const now = new Set<string>();
    for (const problem of problems) {
      const ref = refs.get(problem.service);
      if (ref === undefined) continue;
      const key = `${ref.uid}\0${problem.message}`;
      now.add(key);
      if (this.reported.has(key)) continue;
      this.options.event({ cluster: ref.cluster, name: ref.name, uid: ref.uid, type: 'Warning', reason: problem.reason, message: `${problem.message} (site ${this.options.site})`.slice(0, 1024) });
    }
    if (problems.every((p) => p.reason !== 'FailedToApplyProxy')) this.reported = now;
    else for (const key of now) this.reported.add(key);
  }
}
