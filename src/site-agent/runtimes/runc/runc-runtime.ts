import { readdir } from 'node:fs/promises';
import { totalmem } from 'node:os';
import type { KubeObject } from '../../../apimachinery/object.js';
import type { ClusterRef } from '../../../site-api/site-api-types.js';
import type { NodeDirectory } from '../../node-directory.js';
import { podKeyOf } from '../../pod-key.js';
import type { PodRuntime } from '../../pod-runtime.js';
import { removePodTraces } from './pod-worker/pod-cleanup.js';
import type { PodServices, RuncSiteParts } from './pod-parts.js';
import { RuncPod } from './pod-worker/runc-pod.js';
import { RuncPodStreams } from './streams/runc-pod-streams.js';
import type { PlacedObjects } from '../../site-api-client.js';
import { ClaimFolderSweeper } from './volumes/claim-folder-sweep.js';

/** How often running containers are checked for exits the file watches missed (kubelet's PLEG relist period). */
const RELIST_MS = 1000;
/** Every this many relists each pod syncs anyway: configMap and secret volumes get their updates (kubelet resyncs every minute). */
const RESYNC_EVERY = 10;
/** How long a pod the control plane forgot gets to stop. */
const FORGOTTEN_GRACE_MS = 2000;

export interface RuncRuntimeOptions {
  readonly nodes: NodeDirectory;
  /** The prepared sites, by name (see {@link openRuncSite}). */
  readonly sites: ReadonlyMap<string, RuncSiteParts & { close(): void; destroy(): Promise<void> }>;
  readonly services: Omit<PodServices, 'machineMemoryBytes'> & { readonly machineMemoryBytes?: number };
  /** Each site's Service data plane, told when the site's pods come and go (and every resync). */
  readonly proxies?: ReadonlyMap<string, { trigger(): void; close(): Promise<void> }>;
  /** The claims placed on the agent's sites (the site API), read by each sweep of the folders of claims that are gone. */
  readonly claimSweep?: { readonly list: () => Promise<PlacedObjects>; readonly intervalMs: number };
}

/**
 * The runc runtime: real pods on the agent's runc sites, one {@link RuncPod} worker per pod.
 * Pods an earlier agent started are adopted by their workers; once the pod watch has listed
 * everything, sandboxes no pod owns are removed, and the sweeps of the folders of claims that
 * are gone begin (volumes/claim-folder-sweep.ts).
 */
export class RuncRuntime implements PodRuntime {
  private readonly pods = new Map<string, RuncPod>();
  private readonly services: PodServices;
  private cancelRelist: () => void;
  private ticks = 0;
  /** Each site's pod addresses at the last relist, as its proxy was told. */
  private readonly lastAddresses = new Map<string, string>();
  private cancelSweep: (() => void) | undefined;
  private closed = false;
  /** Logs, exec, attach, cp and port-forward of the pods (see streams/). */
  readonly streams: RuncPodStreams;

  constructor(private readonly options: RuncRuntimeOptions) {
    this.services = { ...options.services, machineMemoryBytes: options.services.machineMemoryBytes ?? totalmem() };
    this.cancelRelist = options.services.timers.schedule(() => this.relistTick(), RELIST_MS);
    this.streams = new RuncPodStreams((key) => {
      const worker = this.pods.get(key);
      const site = worker === undefined ? undefined : this.options.sites.get(worker.site);
      return worker === undefined || site === undefined ? undefined : { view: worker.streamView(), containers: site.containers, ip: site.broker.ip };
    });
  }

  get size(): number {
    return this.pods.size;
  }

  keys(): IterableIterator<string> {
    return this.pods.keys();
  }

  /** The addresses of `site`'s pods now, by virtual cluster (`tenant:namespace:name`). */
  podAddresses(site: string): Map<string, string[]> {
    const byCluster = new Map<string, string[]>();
    for (const worker of this.pods.values()) {
      const network = worker.site === site ? worker.network : undefined;
      if (network === undefined) continue;
      const id = `${network.cluster.tenant}:${network.cluster.namespace}:${network.cluster.name}`;
      byCluster.set(id, [...(byCluster.get(id) ?? []), network.ip]);
    }
    return byCluster;
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
      worker = new RuncPod(key, cluster, pod, { site, services: this.services });
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
    this.options.proxies?.get(worker.site)?.trigger();
  }

  listed(): void {
    void this.collectOrphans().catch((error: unknown) => this.services.logger.warn({ err: error }, 'removing orphaned pod sandboxes failed'));
    if (this.cancelSweep === undefined && this.options.claimSweep !== undefined) this.scheduleSweep(this.options.claimSweep);
  }

  /** Sweeps the claim folders every `intervalMs`, one sweep at a time, until the runtime closes. */
  private scheduleSweep(options: NonNullable<RuncRuntimeOptions['claimSweep']>): void {
    const sites = [...this.options.sites.values()].map((site) => ({ name: site.name, pvRoot: site.pvRoot, podsDir: site.sandboxes.podDir('') }));
    const sweeper = new ClaimFolderSweeper(sites, options.list, this.services.logger);
    const next = (): void => {
      this.cancelSweep = this.services.timers.schedule(() => {
        void sweeper
          .sweep()
          .catch((error: unknown) => this.services.logger.warn({ err: error }, 'sweeping the folders of claims that are gone failed'))
          .finally(() => {
            if (!this.closed) next();
          });
      }, options.intervalMs);
    };
    next();
  }

  /**
   * Stops following the pods; their containers keep running for the next agent to adopt. The
   * sites' Service proxies and DNS servers stop (the next agent starts them again).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.cancelSweep?.();
    this.cancelRelist();
    this.streams.close();
    for (const worker of this.pods.values()) worker.detach();
    await Promise.all([...(this.options.proxies?.values() ?? [])].map((proxy) => proxy.close()));
    for (const site of this.options.sites.values()) site.close();
  }

  /** Stops every pod (1 s grace) and removes it and the sites' networks: nothing of the runtime stays on the machine. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.cancelSweep?.();
    this.cancelRelist();
    this.streams.close();
    const workers = [...this.pods.values()];
    this.pods.clear();
    await Promise.all(workers.map((worker) => worker.remove(1000)));
    await this.collectOrphans();
    for (const proxy of this.options.proxies?.values() ?? []) await proxy.close();
    for (const site of this.options.sites.values()) {
      site.close();
      await site.destroy();
    }
  }

  private relistTick(): void {
    this.ticks++;
    const resync = this.ticks % RESYNC_EVERY === 0;
    for (const worker of this.pods.values()) {
      if (resync || worker.hasExited()) worker.trigger();
      if (resync) void worker.rotateLogs();
    }
    // A site's pod addresses changed (a pod adopted after an agent restart, a sandbox made or
    // gone): its proxy syncs within this tick; every resync it syncs anyway.
    for (const [site, proxy] of this.options.proxies ?? []) {
      const addresses = JSON.stringify([...this.podAddresses(site)].sort());
      if (resync || addresses !== this.lastAddresses.get(site)) proxy.trigger();
      this.lastAddresses.set(site, addresses);
    }
    this.cancelRelist = this.options.services.timers.schedule(() => this.relistTick(), RELIST_MS);
  }

  /** Removes the sandboxes of pods no worker owns (left by an agent that stopped while they were deleted). */
  private async collectOrphans(): Promise<void> {
    const owned = new Set([...this.pods.values()].map((worker) => worker.uid));
    for (const site of this.options.sites.values()) {
      const podsDir = site.sandboxes.podDir('');
      for (const uid of await readdir(podsDir).catch(() => [] as string[])) {
        if (owned.has(uid)) continue;
        await removePodTraces(site, uid);
        this.services.logger.info({ site: site.name, uid }, 'removed a pod sandbox no pod owns');
      }
    }
  }
}
