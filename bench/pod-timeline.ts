import type { TLSSocket } from 'node:tls';
import { SIDECAR_CONTAINER_NAME } from '../src/api/sidecar-injection.js';
import { nowMs } from './stats.js';
import { openWatchConnection } from './watch-connection.js';
import type { Target } from './watch-protocol.js';

/** When the watch first showed a pod in each state (ms on the monotonic clock of {@link nowMs}). */
export interface PodTimes {
  readonly uid: string;
  readonly name: string;
  /** The pod's `app` label (the bench's Deployments label their pods so). */
  readonly app: string;
  /** The injected sidecar's container running (before its READY: the workload waits for that). */
  sidecarRunning?: number;
  /** `status.phase` Running (kubelet's: a container of the pod runs; here the sidecar comes first). */
  running?: number;
  /** The Ready condition True: every container ready, the injected sidecar READY included. */
  ready?: number;
  /** A deletion was seen (the pod is terminating or gone). */
  deleting?: number;
  gone?: number;
}

interface WatchedPod {
  readonly metadata?: { uid?: string; name?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  readonly status?: { phase?: string; conditions?: Array<{ type?: string; status?: string }>; containerStatuses?: Array<{ name?: string; state?: { running?: unknown } }> };
}

/**
 * The pods of a virtual cluster as one watch (`?watch=true`, HTTP/1.1 chunked, the vK8s API)
 * shows them, each transition stamped when its event arrives. Waits resolve on the event that
 * satisfies them, not on a poll.
 */
export class PodTimeline {
  private readonly pods = new Map<string, PodTimes>();
  private readonly waiters = new Set<() => void>();
  private socket: TLSSocket | undefined;
  private ended = false;

  /** Opens the watch (from now: the cluster must hold no pods the bench cares about yet). */
  static async open(target: Target): Promise<PodTimeline> {
    const timeline = new PodTimeline();
    timeline.socket = await openWatchConnection(target, (line) => timeline.line(line), () => timeline.end());
    return timeline;
  }

  private line(line: string): void {
    const at = nowMs();
    if (line.trim() === '') return;
    let event: { type?: string; object?: WatchedPod };
    try {
      event = JSON.parse(Buffer.from(line, 'latin1').toString('utf8')) as typeof event;
    } catch {
      return;
    }
    const pod = event.object;
    const uid = pod?.metadata?.uid;
    if (pod === undefined || uid === undefined || (event.type !== 'ADDED' && event.type !== 'MODIFIED' && event.type !== 'DELETED')) return;
    let times = this.pods.get(uid);
    if (times === undefined) {
      times = { uid, name: pod.metadata?.name ?? '', app: pod.metadata?.labels?.['app'] ?? '' };
      this.pods.set(uid, times);
    }
    if (pod.status?.containerStatuses?.some((c) => c.name === SIDECAR_CONTAINER_NAME && c.state?.running !== undefined) === true) times.sidecarRunning ??= at;
    if (pod.status?.phase === 'Running') times.running ??= at;
    if (pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true) times.ready ??= at;
    if (pod.metadata?.deletionTimestamp !== undefined || event.type === 'DELETED') times.deleting ??= at;
    if (event.type === 'DELETED') times.gone ??= at;
    for (const wake of [...this.waiters]) wake();
  }

  private end(): void {
    this.ended = true;
    for (const wake of [...this.waiters]) wake();
  }

  /** The pods of `app` that are not being deleted. */
  live(app: string): PodTimes[] {
    return [...this.pods.values()].filter((p) => p.app === app && p.deleting === undefined);
  }

  /** Every pod of `app` the watch has shown that is not gone yet. */
  remaining(app: string): PodTimes[] {
    return [...this.pods.values()].filter((p) => p.app === app && p.gone === undefined);
  }

  /**
   * Resolves with `check()`'s first defined answer, checked now and after every event; fails
   * after `timeoutMs` (or when the watch ends) naming `what` and `describe()`.
   */
  until<T>(what: string, check: () => T | undefined, timeoutMs: number, describe: () => string = () => ''): Promise<T> {
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      const wake = (): void => {
        const value = check();
        if (value !== undefined) {
          finish();
          resolve(value);
        } else if (this.ended) {
          finish();
          reject(new Error(`the pod watch ended while waiting for ${what}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${describe() === '' ? '' : `: ${describe()}`}`));
      }, timeoutMs);
      this.waiters.add(wake);
      wake();
    });
  }

  close(): void {
    this.socket?.destroy();
  }
}
