import { LRUCache } from 'lru-cache';
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
  /** Least recently used out first beyond the cache size, as client-go's LRU caches. */
  private readonly buckets: LRUCache<string, TokenBucket>;
  private readonly recorded: LRUCache<string, RecordedEvent>;
  private readonly windowMs: number;
  private readonly burst: number;
  private readonly refillMs: number;

  constructor(options: EventCorrelatorOptions = {}) {
    this.windowMs = options.aggregationWindowMs ?? 10 * 60_000;
    this.burst = options.burst ?? 25;
    this.refillMs = options.refillMs ?? 5 * 60_000;
    const cacheSize = options.cacheSize ?? 4096;
    if (!(Number.isInteger(cacheSize) && cacheSize >= 1)) throw new Error(`the event correlator's cache size must be a whole number of at least 1, not ${cacheSize}`);
    this.buckets = new LRUCache({ max: cacheSize });
    this.recorded = new LRUCache({ max: cacheSize });
  }

  /** Whether an event about `spamKey` (source + object) may be recorded now; takes its token. */
  allow(spamKey: string, nowMs: number): boolean {
    let bucket = this.buckets.get(spamKey); // marks it recently used
    if (bucket === undefined) {
      bucket = new TokenBucket(this.burst, this.refillMs, nowMs);
      this.buckets.set(spamKey, bucket);
    }
    return bucket.take(nowMs);
  }

  /** The Event to update for `key` at `nowMs`, when one was written within the window. */
  existing(key: string, nowMs: number): RecordedEvent | undefined {
    const found = this.recorded.peek(key);
    return found !== undefined && nowMs - found.lastMs <= this.windowMs ? found : undefined;
  }

  /** Remembers that `key` was written (created or updated) as `name` at `nowMs`. */
  written(key: string, name: string, nowMs: number): void {
    this.recorded.set(key, { name, lastMs: nowMs }); // also marks it recently used
  }

  forget(key: string): void {
    this.recorded.delete(key);
  }
}
