/** The crash-loop back-off's bounds: kubelet's `backOffPeriod` and `MaxContainerBackOff`. */
export interface BackOffPolicy {
  readonly initialMs: number;
  readonly maxMs: number;
}

export const CRASH_LOOP_BACK_OFF: BackOffPolicy = { initialMs: 10_000, maxMs: 300_000 };

/** What to do with a container that exited and is to be restarted. */
export type RestartDecision =
  | { readonly start: true }
  /** Still backing off: start it at `at` (epoch ms); `delayMs` is the back-off shown in the message. */
  | { readonly start: false; readonly at: number; readonly delayMs: number };

interface Entry {
  delayMs: number;
  /** When the back-off was last advanced, i.e. when the container was last restarted. */
  lastUpdate: number;
}

/** The back-off key of one container of one pod (kubelet's stable key without the spec hash). */
export function backOffKey(podUid: string, containerName: string): string {
  return `${podUid}/${containerName}`;
}

/**
 * kubelet's crash-loop back-off (`flowcontrol.Backoff` as `doBackOff` uses it), with time
 * passed in. The first exit of a container restarts it at once and arms a 10 s back-off;
 * each later exit waits the back-off counted from when the container finished, and the next
 * restart doubles it up to 5 min. A container that finished more than twice the maximum
 * (10 min) after its last restart (it ran that long) starts again as if it never failed.
 */
export class RestartBackOff {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly policy: BackOffPolicy = CRASH_LOOP_BACK_OFF) {}

  /**
   * Whether a container that finished at `finishedAt` may start at `now`. When it may, the
   * restart is recorded (the back-off advances), so call this exactly when about to restart.
   */
  decide(key: string, finishedAt: number, now: number): RestartDecision {
    const entry = this.entries.get(key);
    if (entry !== undefined && !this.expired(entry, finishedAt) && now - finishedAt < entry.delayMs) {
      return { start: false, at: finishedAt + entry.delayMs, delayMs: entry.delayMs };
    }
    if (entry === undefined || this.expired(entry, finishedAt)) {
      this.entries.set(key, { delayMs: this.policy.initialMs, lastUpdate: now });
    } else {
      entry.delayMs = Math.min(entry.delayMs * 2, this.policy.maxMs);
      entry.lastUpdate = now;
    }
    return { start: true };
  }

  /** The current back-off of `key` (what kubelet's message shows), if it has one. */
  delayMs(key: string): number | undefined {
    return this.entries.get(key)?.delayMs;
  }

  /** Forgets every container of a pod (the pod is gone). */
  forgetPod(podUid: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(`${podUid}/`)) this.entries.delete(key);
  }

  /** Drops entries not advanced for twice the maximum (kubelet's periodic `GC`). */
  gc(now: number): void {
    for (const [key, entry] of this.entries) if (now - entry.lastUpdate > 2 * this.policy.maxMs) this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private expired(entry: Entry, finishedAt: number): boolean {
    return finishedAt - entry.lastUpdate > 2 * this.policy.maxMs;
  }
}

/** kubelet's `ShouldContainerBeRestarted` for a container that has exited. */
export function shouldRestart(restartPolicy: string | undefined, exitCode: number): boolean {
  if (restartPolicy === 'Never') return false;
  if (restartPolicy === 'OnFailure') return exitCode !== 0;
  return true;
}

/** The waiting message of a container in CrashLoopBackOff, as kubelet words it. */
export function crashLoopMessage(delayMs: number, container: string, pod: { name: string; namespace: string; uid: string }): string {
  return `back-off ${goDuration(delayMs)} restarting failed container=${container} pod=${pod.name}_${pod.namespace}(${pod.uid})`;
}

/** A duration as Go's `time.Duration.String` prints it (`10s`, `1m20s`, `5m0s`, `1.5s`, `300ms`). */
export function goDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${abs}ms`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const millis = abs % 60_000;
  const seconds = `${Math.floor(millis / 1000)}${millis % 1000 === 0 ? '' : `.${String(millis % 1000).padStart(3, '0').replace(/0+$/, '')}`}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}
