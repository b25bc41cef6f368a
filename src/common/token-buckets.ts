import { LRUCache } from 'lru-cache';

/** A token bucket's rule: `ratePerSecond` tokens come back each second, at most `burst` are held. */
export interface TokenBucketRule {
  readonly ratePerSecond: number;
  readonly burst: number;
}

/** A bucket's state: the tokens it held at `atMs` (a monotonic time). */
export interface TokenBucket {
  readonly tokens: number;
  readonly atMs: number;
}

/** What taking a token decided: the bucket after it, and when refused, the seconds until a token is back. */
export type TakeOutcome = { readonly taken: true; readonly bucket: TokenBucket } | { readonly taken: false; readonly bucket: TokenBucket; readonly retryAfterSeconds: number };

/**
 * Takes one token from `bucket` at `nowMs` (a bucket never seen starts full). Pure: the
 * bucket is refilled for the time that passed, capped at the burst; when less than one
 * token is left the request is refused with the whole seconds until one is (at least 1,
 * as `Retry-After` counts).
 */
export function takeToken(bucket: TokenBucket | undefined, nowMs: number, rule: TokenBucketRule): TakeOutcome {
  const elapsedMs = bucket === undefined ? 0 : Math.max(0, nowMs - bucket.atMs);
  const tokens = bucket === undefined ? rule.burst : Math.min(rule.burst, bucket.tokens + (elapsedMs / 1000) * rule.ratePerSecond);
  if (tokens >= 1) return { taken: true, bucket: { tokens: tokens - 1, atMs: nowMs } };
  const retryAfterSeconds = Math.max(1, Math.ceil((1 - tokens) / rule.ratePerSecond));
  return { taken: false, bucket: { tokens, atMs: nowMs }, retryAfterSeconds };
}

/**
 * One token bucket per key (a credential, a client address), in an LRU of at most `maxKeys`:
 * a key's bucket never touches another's, so one caller over its rate does not slow any
 * other. A bucket pushed out of the LRU comes back full, which errs towards letting a request
 * through, never towards refusing one.
 */
export class TokenBuckets {
  private readonly buckets: LRUCache<string, TokenBucket>;
  private readonly now: () => number;

  constructor(
    readonly rule: TokenBucketRule,
    options: { readonly maxKeys?: number; readonly now?: () => number } = {},
  ) {
    if (!(rule.ratePerSecond > 0) || !(rule.burst >= 1)) throw new RangeError(`a token bucket needs a positive rate and a burst of at least 1 (got ${rule.ratePerSecond}/s, burst ${rule.burst})`);
    this.buckets = new LRUCache({ max: options.maxKeys ?? 10_000 });
    this.now = options.now ?? (() => performance.now());
  }

  /** Takes a token of `key`'s bucket: undefined when taken, else the seconds to wait (`Retry-After`). */
  take(key: string): number | undefined {
    const outcome = takeToken(this.buckets.get(key), this.now(), this.rule);
    this.buckets.set(key, outcome.bucket);
    return outcome.taken ? undefined : outcome.retryAfterSeconds;
  }
}
