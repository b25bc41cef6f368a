import type { Logger } from '../observability/logger.js';
import type { PodRef, PodStatusItem, PodStatusResult } from '../site-api/site-api-types.js';
import type { Timers } from '../common/timers.js';

/** Where batches go: the site API's status and terminated endpoints. */
export interface StatusTransport {
  postStatuses(items: readonly PodStatusItem[]): Promise<readonly PodStatusResult[]>;
  postTerminated(items: readonly PodRef[]): Promise<readonly PodStatusResult[]>;
}

export interface StatusBatcherOptions {
  readonly transport: StatusTransport;
  readonly timers: Timers;
  readonly logger: Logger;
  /** How long a status may wait for company (default 100 ms). */
  readonly flushMs?: number;
  /** Items per request; this many waiting flush at once (default 500). */
  readonly maxBatch?: number;
  /** The control plane no longer has this pod (NotFound or another uid): forget it. */
  readonly onGone?: (key: string, uid: string) => void;
}

/** An item error saying the pod (with this uid) is gone from the control plane. */
const GONE = /not ?found|precondition failed/i;

/** Pure: did the control plane fail to take this item for now (its store unavailable, overloaded: 5xx, 429)? */
function isTransientItemError(result: PodStatusResult | undefined): boolean {
  const code = result?.code;
  return result?.error !== undefined && result.error !== '' && code !== undefined && (code >= 500 || code === 429);
}

/**
 * Batches pod statuses and terminations for the site API. Statuses coalesce per pod (the
 * newest replaces a waiting one); a batch goes out every `flushMs` or as soon as `maxBatch`
 * items wait; one request is in flight at a time and statuses precede terminations, so a
 * pod's reports arrive in the order they were made. A failed request puts its items back
 * (unless a newer report of the same pod is waiting) and the next try backs off up to 10 s;
 * so do items the control plane could not take for now (5xx, 429: its store was down) — a
 * pod that has reached its steady state reports nothing more, so a lost report would never
 * be made good. Other item errors are not retried: the pod is gone or not this site's. While
 * the control plane is unreachable each pod's newest report waits (an older one never
 * overrides it), and {@link retryNow} sends them the moment the link is back.
 */
export class StatusBatcher {
  private readonly statuses = new Map<string, PodStatusItem>();
  private readonly terminations = new Map<string, PodRef>();
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private timer: (() => void) | undefined;
  private inFlight: Promise<void> | undefined;
  private failures = 0;
  private closing = false;

  constructor(private readonly options: StatusBatcherOptions) {
    this.flushMs = options.flushMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
  }

  /** Items waiting to be sent. */
  get pending(): number {
    return this.statuses.size + this.terminations.size;
  }

  status(key: string, item: PodStatusItem): void {
    if (this.terminations.has(key)) return;
    this.statuses.set(key, item);
    this.kick();
  }

  /** The site stopped a pod marked for deletion; a waiting status of it is dropped. */
  terminated(key: string, ref: PodRef): void {
    this.statuses.delete(key);
    this.terminations.set(key, ref);
    this.kick();
  }

  /** Drops whatever waits for `key` (the pod is gone). */
  forget(key: string): void {
    this.statuses.delete(key);
    this.terminations.delete(key);
  }

  /**
   * The link to the control plane is back (the pod watch opened again): what waits out a
   * back-off is sent now rather than at the back-off's end, so reports kept while the control
   * plane was unreachable — each pod's newest — arrive as soon as it can take them.
   */
  retryNow(): void {
    if (this.closing || this.inFlight !== undefined || this.failures === 0 || this.pending === 0) return;
    this.timer?.();
    this.timer = undefined;
    this.startFlush();
  }

  /** Stops the timer and sends everything waiting, one batch after another, until a request fails. */
  async close(): Promise<void> {
    this.closing = true;
    this.timer?.();
    this.timer = undefined;
    await this.inFlight;
    while (this.pending > 0) {
      const before = this.pending;
      await this.flushOnce();
      if (this.pending >= before) break;
    }
  }

  private kick(): void {
    if (this.closing || this.inFlight !== undefined) return;
    if (this.pending >= this.maxBatch) {
      this.timer?.();
      this.timer = undefined;
      this.startFlush();
      return;
    }
    this.timer ??= this.options.timers.schedule(() => {
      this.timer = undefined;
      this.startFlush();
    }, this.flushMs);
  }

  private startFlush(): void {
    if (this.inFlight !== undefined || this.closing) return;
    this.inFlight = this.flushOnce().finally(() => {
      this.inFlight = undefined;
      if (this.pending === 0 || this.closing) return;
      if (this.failures > 0) {
        this.timer ??= this.options.timers.schedule(() => {
          this.timer = undefined;
          this.startFlush();
        }, Math.min(10_000, 250 * 2 ** Math.min(this.failures, 10)));
      } else {
        this.kick();
      }
    });
  }

  private async flushOnce(): Promise<void> {
    const statuses = take(this.statuses, this.maxBatch);
    const terminations = take(this.terminations, this.maxBatch - statuses.length);
    const notTaken: string[] = [];
    try {
      if (statuses.length > 0) {
        const results = await this.options.transport.postStatuses(statuses.map(([, item]) => item));
        const again = statuses.filter(([key, item], i) => this.judge(key, item.uid, results[i], notTaken));
        this.putBack(again, this.statuses, (key) => this.terminations.has(key));
      }
    } catch (error) {
      this.failed(error, statuses, this.statuses, (key) => this.terminations.has(key));
      this.putBack(terminations, this.terminations);
      return;
    }
    try {
      if (terminations.length > 0) {
        const results = await this.options.transport.postTerminated(terminations.map(([, ref]) => ref));
        this.putBack(terminations.filter(([key, ref], i) => this.judge(key, ref.uid, results[i], notTaken)), this.terminations);
      }
    } catch (error) {
      this.failed(error, terminations, this.terminations);
      return;
    }
    if (notTaken.length === 0) {
      this.failures = 0;
      return;
    }
    this.failures++;
    this.options.logger.warn({ items: notTaken.length, err: notTaken[0], failures: this.failures }, 'the control plane could not take some pod reports now; will retry');
  }

  /** Whether an item must be sent again (its error is transient; noted in `notTaken`); handles the others. */
  private judge(key: string, uid: string, result: PodStatusResult | undefined, notTaken: string[]): boolean {
    const error = result?.error;
    if (error === undefined || error === '') return false;
    if (isTransientItemError(result)) {
      notTaken.push(error);
      return true;
    }
    if (GONE.test(error)) this.options.onGone?.(key, uid);
    this.options.logger.debug({ pod: key, error }, 'report not taken');
    return false;
  }

  /** Puts back a failed batch's items unless newer ones wait, and backs off. */
  private failed<T>(error: unknown, items: ReadonlyArray<readonly [string, T]>, into: Map<string, T>, superseded: (key: string) => boolean = () => false): void {
    this.failures++;
    this.options.logger.warn({ err: error, items: items.length, failures: this.failures }, 'reporting pod status failed; will retry');
    this.putBack(items, into, superseded);
  }

  /** Puts items back to be sent again unless newer ones wait. */
  private putBack<T>(items: ReadonlyArray<readonly [string, T]>, into: Map<string, T>, superseded: (key: string) => boolean = () => false): void {
    for (const [key, item] of items) {
      if (!into.has(key) && !superseded(key)) into.set(key, item);
    }
  }
}

/** Removes and returns up to `n` entries of `map`, oldest first. */
function take<T>(map: Map<string, T>, n: number): Array<readonly [string, T]> {
  const out: Array<readonly [string, T]> = [];
  for (const entry of map) {
    if (out.length >= n) break;
    out.push(entry);
  }
  for (const [key] of out) map.delete(key);
  return out;
}
