import { TokenBucket } from './token-bucket.js';

export interface EventCorrelatorOptions {
  /** Repeats within this long update the earlier Event (kube: 10 minutes). */
  readonly aggregationWindowMs?: number;
  /** Events one source may record about one object at once (kube's spam filter: 25)… */
  readonly burst?: number;
  /** …and one more per this long (kube: one per 5 minutes). */
  readonly refillMs?: number;
  /** Aggregation records and spam buckets kept, least recently used out first (kube: 4096). */
  readonly cacheSize?: number;
}

/** The Event an aggregation key was last written as. */
export interface RecordedEvent {
  readonly name: string;
  readonly lastMs: number;
}

/**
 * kube's EventCorrelator, reduced to its two decisions: the spam filter (a token bucket per
 * source and involved object; an event without a token is dropped) and aggregation (the
 * same object, type, reason and message within the window updates the Event already
 * written: count and lastTimestamp). State only; the recorder does the writes.
 */
export class EventCorrelator {
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly recorded = new Map<string, RecordedEvent>();
  private readonly windowMs: number;
  private readonly burst: number;
  private readonly refillMs: number;
  private readonly cacheSize: number;

  constructor(options: EventCorrelatorOptions = {}) {
    this.windowMs = options.aggregationWindowMs ?? 10 * 60_000;
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 5 * 60_000;
    this.cacheSize = options.cacheSize ?? 4096;
  }

  /** Whether an event about `spamKey` (source + object) may be recorded now; takes its token. */
  allow(spamKey: string, nowMs: number): boolean {
    let bucket = this.buckets.get(spamKey);
    if (bucket === undefined) bucket = new TokenBucket(this.burst, this.refillMs, nowMs);
    else this.buckets.delete(spamKey);
    const allowed = bucket.take(nowMs);
    this.buckets.set(spamKey, bucket);
    this.trim(this.buckets);
    return allowed;
  }

  /** The Event to update for `key` at `nowMs`, when one was written within the window. */
  existing(key: string, nowMs: number): RecordedEvent | undefined {
    const found = this.recorded.get(key);
    return found !== undefined && nowMs - found.lastMs <= this.windowMs ? found : undefined;
  }

  /** Remembers that `key` was written (created or updated) as `name` at `nowMs`. */
  written(key: string, name: string, nowMs: number): void {
    this.recorded.delete(key);
    this.recorded.set(key, { name, lastMs: nowMs });
    this.trim(this.recorded);
  }

  forget(key: string): void {
    this.recorded.delete(key);
  }

  /**
   * Drops the least recently used entries beyond the cache size, as client-go's LRU caches
   * do. O(1) per call: scanning for "forgettable" entries first cost a pass over all 4,096
   * buckets on every event once that many objects had one (2.8 % of the control plane's CPU
   * at 100 events/s, `npm run bench -- vk8s`).
   */
  private trim<T>(map: Map<string, T>): void {
    while (map.size > this.cacheSize) {
      const oldest = map.keys().next().value;
      if (oldest === undefined) return;
      map.delete(oldest);
    }
  }
}
