import { EXPECTED_PODS } from './client-pod.js';
import { isReady, type EdgeSite, type Pod } from './edge-site.js';

export interface Observation {
  readonly t: number;
  /** Every expected pod listed, none terminating, all Ready; undefined when the server did not answer. */
  readonly allReady: boolean | undefined;
}

/**
 * What `kubectl get pods` shows, sampled every 250 ms for the whole run from the API
 * kubectl reads (the pods list of the virtual cluster, with the tenant admin's token).
 */
export class ReadinessWatch {
  private readonly observations: Observation[] = [];
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(private readonly site: EdgeSite) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const t = Date.now();
      const pods = await this.site.pods();
      this.observations.push({ t, allReady: pods === undefined ? undefined : allReady(pods) });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, 250 - (Date.now() - t))));
    }
  }

  /**
   * Seconds from `restoredAt` until the pods were seen all Ready for good within [restoredAt,
   * until): the first all-Ready sample after the last sample that was not (0 when none was
   * not); undefined when the last answered sample was not all Ready. Unanswered samples
   * (the server starting) are neither.
   */
  readyAfter(restoredAt: number, until: number): number | undefined {
    return readyAfter(this.observations, restoredAt, until);
  }

  /** Seconds within [from, until) the answered samples showed some pod not Ready (each sample standing until the next). */
  notReadySeconds(from: number, until: number): number {
    const samples = this.observations.filter((o) => o.t >= from && o.t < until);
    let ms = 0;
    for (const [i, sample] of samples.entries()) if (sample.allReady === false) ms += (samples[i + 1]?.t ?? until) - sample.t;
    return ms / 1000;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/** {@link ReadinessWatch.readyAfter} over `observations` (pure). */
export function readyAfter(observations: readonly Observation[], restoredAt: number, until: number): number | undefined {
  const samples = observations.filter((o) => o.t >= restoredAt && o.t < until && o.allReady !== undefined);
  const last = samples.at(-1);
  if (last === undefined || last.allReady !== true) return undefined;
  const lastNotReady = samples.findLastIndex((o) => o.allReady === false);
  const firstReady = samples[lastNotReady + 1] ?? last;
  return lastNotReady === -1 ? 0 : (firstReady.t - restoredAt) / 1000;
}

export function allReady(pods: readonly Pod[]): boolean {
  const live = pods.filter((p) => p.metadata.deletionTimestamp === undefined);
  return live.length === EXPECTED_PODS && pods.length === EXPECTED_PODS && live.every(isReady);
}

/** The site's pods at one moment: from the API (uids, restart counts) and from runc (container pids). */
export interface Census {
  readonly uids: ReadonlyMap<string, string>;
  readonly restarts: ReadonlyMap<string, number>;
  readonly pids: ReadonlyMap<string, number>;
}

export async function takeCensus(site: EdgeSite, pods: readonly Pod[] | undefined): Promise<Census> {
  const listed = pods ?? (await site.pods()) ?? [];
  const live = listed.filter((p) => p.metadata.deletionTimestamp === undefined);
  return {
    uids: new Map(live.map((p) => [p.metadata.uid, p.metadata.name])),
    restarts: new Map(live.map((p) => [p.metadata.uid, (p.status?.containerStatuses ?? []).reduce((sum, c) => sum + c.restartCount, 0)])),
    pids: site.containerPids(),
  };
}

export interface CensusChange {
  /** Restart count increases (API) summed over pods that stayed. */
  readonly restarts: number;
  /** Containers (infra, sidecar, workload) whose pid changed, that went or that came. */
  readonly newPids: number;
  /** Pods whose uid is gone or new (recreated, moved). */
  readonly moved: number;
}

export function compareCensus(before: Census, after: Census): CensusChange {
  let restarts = 0;
  for (const [uid, count] of after.restarts) restarts += Math.max(0, count - (before.restarts.get(uid) ?? count));
  const gone = [...before.uids.keys()].filter((uid) => !after.uids.has(uid)).length;
  const came = [...after.uids.keys()].filter((uid) => !before.uids.has(uid)).length;
  const ids = new Set([...before.pids.keys(), ...after.pids.keys()]);
  const newPids = [...ids].filter((id) => before.pids.get(id) !== after.pids.get(id)).length;
  return { restarts, newPids, moved: Math.max(gone, came) };
}
