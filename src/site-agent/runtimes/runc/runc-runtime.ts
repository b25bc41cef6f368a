import { readdir } from 'node:fs/promises';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { ClusterRef } from '../../../site-api/site-api-types.js';
import type { Program } from '../../host/index.js';
import type { NodeDirectory } from '../../node-directory.js';
import { podKeyOf } from '../../pod-key.js';
import type { PodRuntime } from '../../pod-runtime.js';
import type { ServicePlane, SitePod } from '../../service-proxy/index.js';
import type { PlacedObjects } from '../../site-api-client.js';
import { DEFAULT_WALK_ENTRIES, StorageMonitor, type StoragePod } from './eviction/index.js';
import { removePodTraces, RuncPodWorker, type PodServices } from './pod-worker/index.js';
import type { OpenRuncSite } from './runc-site.js';
import { RuncPodStreams } from './streams/index.js';
import { ClaimFolderSweeper } from './volumes/index.js';

/** How often running containers are checked for exits the file watches missed (kubelet's PLEG relist period). */
const RELIST_MS = 1000;
/** Every this many relists each pod syncs anyway: configMap and secret volumes get their updates (kubelet resyncs every minute). */
const RESYNC_EVERY = 10;
/** How long a pod the control plane forgot gets to stop. */
const FORGOTTEN_GRACE_MS = 2000;

export interface RuncRuntimeOptions {
  readonly nodes: NodeDirectory;
  /** The open sites, by name (see {@link openRuncSite}). */
  readonly sites: ReadonlyMap<string, OpenRuncSite>;
  readonly services: PodServices;
  /** The sites' Service data plane, told of the sites' pods (absent: the sites have none). */
  readonly servicePlane?: ServicePlane;
  /** socat for attach input; throws, naming what to install, when the sites lack it. */
  readonly socat: () => Program;
  /** The claims placed on the agent's sites (the site API), read by each sweep of the folders of claims that are gone. */
  readonly claimSweep?: { readonly list: () => Promise<PlacedObjects>; readonly intervalMs: number };
  /** The pods' ephemeral storage checks (eviction/): how often, and each site's cap on all its pods' bytes (none: no cap). */
  readonly storage?: { readonly intervalMs: number; readonly siteCapBytes?: number };
}

/**
 * The runc runtime: real pods on the agent's runc sites, one {@link RuncPodWorker} per pod
 * (kubelet's pod workers), a relist every second (kubelet's PLEG: exits the file watches
 * missed, the sites' pod addresses for their Service data plane) and a resync every 10 s.
 * Pods an earlier agent started are adopted by their workers; once the pod watch has listed
 * everything, sandboxes no pod owns are removed, and the sweeps of the folders of claims that
 * are gone begin (volumes/claim-folder-sweep.ts). The pods' ephemeral storage is checked
 * periodically and a pod over its limits (or the site over its cap) evicted (eviction/).
 */
export class RuncRuntime implements PodRuntime {
  private readonly pods = new Map<string, RuncPodWorker>();
  private cancelRelist: () => void;
  private ticks = 0;
  /** Each site's pods at the last relist, as its Service data plane was told. */
  private readonly lastAddresses = new Map<string, string>();
  private cancelSweep: (() => void) | undefined;
  private readonly storage: StorageMonitor | undefined;
  private closed = false;
  /** The pod watch has listed every pod once. */
  private listedOnce = false;
  /** Logs, exec, attach, cp and port-forward of the pods (see streams/). */
  readonly streams: RuncPodStreams;

  constructor(private readonly options: RuncRuntimeOptions) {
    const { timers } = options.services;
    this.cancelRelist = timers.schedule(() => this.relistTick(), RELIST_MS);
    if (options.storage !== undefined) {
      const { intervalMs, siteCapBytes } = options.storage;
      const { logger } = options.services;
      const cap = siteCapBytes === undefined ? {} : { siteCapBytes };
      this.storage = new StorageMonitor({ timers, logger, intervalMs, entriesPerWalk: DEFAULT_WALK_ENTRIES, ...cap, pods: () => this.storagePods() });
      this.storage.start();
    }
    this.streams = new RuncPodStreams(
      (key) => {
        const worker = this.pods.get(key);
        const site = worker === undefined ? undefined : this.options.sites.get(worker.siteName);
        return worker === undefined || site === undefined ? undefined : { view: worker.streamView(), containers: site.containers.runc, ip: site.ipPath };
      },
      () => timers.now(),
      options.socat,
    );
  }

  get size(): number {
    return this.pods.size;
  }

  keys(): IterableIterator<string> {
    return this.pods.keys();
  }

  apply(cluster: ClusterRef, pod: KubeObject): void {
    const key = podKeyOf(cluster, pod.metadata.name ?? '');
    let worker = this.pods.get(key);
    if (worker !== undefined && worker.uid !== pod.metadata.uid) {
      this.streams.release(worker.uid);
      void worker.remove(0);
      this.pods.delete(key);
      worker = undefined;
    }
    if (worker === undefined) {
      const nodeName = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName ?? '';
      const site = this.options.sites.get(this.options.nodes.lookup(nodeName)?.site ?? '');
      if (site === undefined) return;
      const siteName = site.name;
      worker = new RuncPodWorker(key, cluster, pod, site, this.options.services, () => this.tellServicePlane(siteName, false));
      this.pods.set(key, worker);
    }
    worker.update(pod);
  }

  remove(key: string, uid?: string): void {
    const worker = this.pods.get(key);
    if (worker === undefined || (uid !== undefined && uid !== worker.uid)) return;
    this.pods.delete(key);
    this.streams.release(worker.uid);
    void worker.remove(FORGOTTEN_GRACE_MS);
    this.tellServicePlane(worker.siteName, true);
  }

  listed(): void {
    this.listedOnce = true;
    void this.collectOrphans().catch((error: unknown) => this.options.services.logger.warn({ err: error }, 'removing orphaned pod sandboxes failed'));
    if (this.cancelSweep === undefined && this.options.claimSweep !== undefined) this.scheduleSweep(this.options.claimSweep);
  }

  /** Sweeps the claim folders every `intervalMs`, one sweep at a time, until the runtime closes. */
  private scheduleSweep(options: NonNullable<RuncRuntimeOptions['claimSweep']>): void {
    const { timers, logger } = this.options.services;
    const sites = [...this.options.sites.values()].map((site) => ({ name: site.name, pvRoot: site.pvRoot, podsDir: site.podsDir }));
    const sweeper = new ClaimFolderSweeper(sites, options.list, logger);
    const next = (): void => {
      this.cancelSweep = timers.schedule(() => {
        void sweeper
          .sweep()
          .catch((error: unknown) => logger.warn({ err: error }, 'sweeping the folders of claims that are gone failed'))
          .finally(() => {
            if (!this.closed) next();
          });
      }, options.intervalMs);
    };
    next();
  }

  /**
   * Stops following the pods; their containers keep running for the next agent to adopt, and so
   * do the sites' Service proxies and DNS servers (traffic does not notice the restart).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelSweep?.();
    this.storage?.close();
    this.cancelRelist();
    this.streams.close();
    for (const worker of this.pods.values()) worker.detach();
    await this.options.servicePlane?.detach();
    for (const site of this.options.sites.values()) site.close();
  }

  /** Stops every pod (1 s grace) and removes it and the sites' networks: nothing of the runtime stays on the machine. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.cancelSweep?.();
    this.storage?.close();
    this.cancelRelist();
    this.streams.close();
    const workers = [...this.pods.values()];
    this.pods.clear();
    await Promise.all(workers.map((worker) => worker.remove(1000)));
    await this.collectOrphans();
    await this.options.servicePlane?.close();
    for (const site of this.options.sites.values()) {
      site.close();
      await site.destroy();
    }
  }

  /** The running pods, as the ephemeral storage checks measure and evict them. */
  private storagePods(): StoragePod[] {
    const pods: StoragePod[] = [];
    for (const [key, worker] of this.pods) {
      const view = worker.storage();
      if (view !== undefined) pods.push({ key, site: worker.siteName, ...view, evict: (message) => worker.evict(message) });
    }
    return pods;
  }

  /** The pods of `site` that have an address now, with their readiness as the site's probes see it. */
  private podsOf(site: string): SitePod[] {
    const pods: SitePod[] = [];
    for (const worker of this.pods.values()) {
      const pod = worker.siteName === site ? worker.servicePod : undefined;
      if (pod !== undefined) pods.push(pod);
    }
    return pods;
  }

  /** Tells the site's Service data plane its pods when they changed (an address, a readiness, labels; or always, with `resync`). */
  private tellServicePlane(site: string, resync: boolean): void {
    const plane = this.options.servicePlane;
    // Until every pod of the first list is adopted, the site's data plane keeps what runs (an agent restart must not take pods out).
    if (plane === undefined || !this.listedOnce || [...this.pods.values()].some((worker) => !worker.settled)) return;
    const pods = this.podsOf(site);
    const addresses = JSON.stringify(pods.map((p) => JSON.stringify([p.cluster.tenant, p.cluster.namespace, p.cluster.name, p.ip, p])).sort());
    if (addresses !== this.lastAddresses.get(site)) plane.setPods(site, pods);
    else if (resync) plane.resync(site);
    this.lastAddresses.set(site, addresses);
  }

  private relistTick(): void {
    this.ticks++;
    const resync = this.ticks % RESYNC_EVERY === 0;
    for (const worker of this.pods.values()) {
      if (resync || worker.hasExited()) worker.trigger();
      if (resync) void worker.rotateLogs();
    }
    // A site's pod addresses changed (a pod adopted after an agent restart, a sandbox made or
    // gone): its Service data plane syncs within this tick; every resync it syncs anyway.
    for (const site of this.options.sites.keys()) this.tellServicePlane(site, resync);
    // The sites' filters: what they dropped since the last resync goes to the log.
    if (resync) for (const site of this.options.sites.values()) void site.network.filter.logDrops(site.name).catch((error: unknown) => this.options.services.logger.warn({ site: site.name, err: error }, 'cannot read the site network filter\'s counters'));
    this.cancelRelist = this.options.services.timers.schedule(() => this.relistTick(), RELIST_MS);
  }

  /** Removes the sandboxes of pods no worker owns (left by an agent that stopped while they were deleted). */
  private async collectOrphans(): Promise<void> {
    const owned = new Set([...this.pods.values()].map((worker) => worker.uid));
    for (const site of this.options.sites.values()) {
      for (const uid of await readdir(site.podsDir).catch(() => [] as string[])) {
        if (owned.has(uid)) continue;
        await removePodTraces(site, uid);
        this.options.services.logger.info({ site: site.name, uid }, 'removed a pod sandbox no pod owns');
      }
    }
  }
}
