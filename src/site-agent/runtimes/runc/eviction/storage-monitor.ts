import type { PodSpec } from '../../../../api/pod-spec-types.js';
import type { Timers } from '../../../../common/timers.js';
import type { Logger } from '../../../../observability/logger.js';
import { FolderWalk } from './folder-usage.js';
import { localEphemeralVolumes, localStorageEviction, siteStorageEviction, type PodStorageUsage, type SitePodUsage } from './local-storage-eviction.js';

/** A running pod as the storage checks see it: where its bytes are, and how to evict it. */
export interface StoragePod {
  readonly key: string;
  readonly site: string;
  readonly spec: PodSpec;
  /** The folder of each container (its instances: writable layer or host-image root, logs, bundle), by name. */
  readonly containers: ReadonlyMap<string, string>;
  /** The host folder of each volume set up, by name (only the local ephemeral ones on disk are measured). */
  readonly volumes: ReadonlyMap<string, string>;
  /** Stops the pod for good: phase Failed, reason Evicted, `message`, a Warning Event `Evicted`. */
  evict(message: string): void;
}

export interface StorageMonitorOptions {
  readonly timers: Timers;
  readonly logger: Logger;
  /** The running pods of the agent's runc sites, now. */
  readonly pods: () => readonly StoragePod[];
  /** Time between the end of one check and the start of the next. */
  readonly intervalMs: number;
  /** Entries each folder's walk stat's per check at most (it resumes at the next check). */
  readonly entriesPerWalk: number;
  /** The most bytes all pods of one site may hold together (none: no cap). */
  readonly siteCapBytes?: number;
}

/** kubelet's eviction manager period (its fs stats come from cAdvisor's housekeeping, every 10 s too). */
export const DEFAULT_STORAGE_CHECK_MS = 10_000;
/** Entries per folder and check: ~6 µs each, so 0.1–0.2 s of the agent's time at most for a huge folder (docs/RUNTIME.md, "Disk"). */
export const DEFAULT_WALK_ENTRIES = 20_000;

/**
 * kubelet's eviction manager for local ephemeral storage, on a runc site: every `intervalMs`,
 * measures each running pod's folders ({@link FolderWalk}: each container's folder, each
 * emptyDir and configMap volume on disk), decides with the pure rules, and evicts — first each
 * pod over its own limits (`localStorageEviction`: emptyDir `sizeLimit`, the pod's and each
 * container's `limits.ephemeral-storage`), then, when no pod of a site was evicted so and the
 * site's pods together hold more than its cap, the one pod kubelet's disk-pressure ranking picks
 * (`siteStorageEviction`). The I/O (the walks) is here; the decisions are pure.
 */
export class StorageMonitor {
  /** One walk per folder measured, kept between checks (a walk resumes where it stopped). */
  private readonly walks = new Map<string, FolderWalk>();
  private cancel: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: StorageMonitorOptions) {}

  /** Checks every `intervalMs` until closed. */
  start(): void {
    const { timers, logger, intervalMs } = this.options;
    const next = (): void => {
      this.cancel = timers.schedule(() => {
        void this.check()
          .catch((error: unknown) => logger.warn({ err: error }, 'checking the pods\' ephemeral storage failed'))
          .finally(() => {
            if (!this.closed) next();
          });
      }, intervalMs);
    };
    next();
  }

  close(): void {
    this.closed = true;
    this.cancel?.();
    for (const walk of this.walks.values()) walk.close();
    this.walks.clear();
  }

  /** One check of every running pod: measure, decide, evict. */
  async check(): Promise<void> {
    const pods = this.options.pods();
    const bySite = new Map<string, { pod: StoragePod; usage: PodStorageUsage }[]>();
    const measured = new Set<string>();
    for (const pod of pods) {
      const usage = await this.measure(pod, measured);
      if (this.closed) return;
      const site = bySite.get(pod.site) ?? [];
      site.push({ pod, usage });
      bySite.set(pod.site, site);
    }
    for (const [root, walk] of this.walks) {
      if (measured.has(root)) continue;
      this.walks.delete(root);
      walk.close();
    }
    for (const [site, entries] of bySite) this.decide(site, entries);
  }

  private decide(site: string, entries: readonly { pod: StoragePod; usage: PodStorageUsage }[]): void {
    let evicted = false;
    for (const { pod, usage } of entries) {
      const message = localStorageEviction(pod.spec, usage);
      if (message === undefined) continue;
      this.evict(pod, message, usage);
      evicted = true;
    }
    const cap = this.options.siteCapBytes;
    if (evicted || cap === undefined) return;
    const sitePods: SitePodUsage[] = entries.map(({ pod, usage }) => ({ key: pod.key, spec: pod.spec, usage }));
    const chosen = siteStorageEviction(sitePods, cap);
    const entry = chosen === undefined ? undefined : entries.find((e) => e.pod.key === chosen.key);
    if (chosen !== undefined && entry !== undefined) {
      this.options.logger.warn({ site, capBytes: cap }, 'the site\'s pods hold more than its ephemeral storage cap');
      this.evict(entry.pod, chosen.message, entry.usage);
    }
  }

  private evict(pod: StoragePod, message: string, usage: PodStorageUsage): void {
    this.options.logger.info({ pod: pod.key, containers: Object.fromEntries(usage.containers), volumes: Object.fromEntries(usage.volumes), message }, 'evicting a pod for its ephemeral storage');
    pod.evict(message);
  }

  /** The pod's usage: each container's folder, each local ephemeral volume on disk. */
  private async measure(pod: StoragePod, measured: Set<string>): Promise<PodStorageUsage> {
    const walk = async (root: string): Promise<number> => {
      measured.add(root);
      let folder = this.walks.get(root);
      if (folder === undefined) this.walks.set(root, (folder = new FolderWalk(root)));
      return (await folder.step(this.options.entriesPerWalk)).bytes;
    };
    const containers = new Map<string, number>();
    for (const [name, dir] of pod.containers) containers.set(name, await walk(dir));
    const volumes = new Map<string, number>();
    for (const volume of localEphemeralVolumes(pod.spec)) {
      const dir = pod.volumes.get(volume.name ?? '');
      if (dir !== undefined) volumes.set(volume.name ?? '', await walk(dir));
    }
    return { containers, volumes };
  }
}
