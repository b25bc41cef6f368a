import type { SiteTimers } from '../../site/site-timers.js';

export interface SecretCacheLimits {
  /** Most bytes held: each entry counts its value's bytes plus its key's length plus 64. Default 16 MiB. */
  readonly maxBytes: number;
  /** Most entries held. Default 4096. */
  readonly maxEntries: number;
}

export const DEFAULT_SECRET_CACHE_LIMITS: SecretCacheLimits = { maxBytes: 16 * 1024 * 1024, maxEntries: 4096 };

/** Bookkeeping counted per entry on top of its value and key (an estimate of the Map entry and record). */
export const ENTRY_OVERHEAD_BYTES = 64;

/** Node timers overflow past 2^31 − 1 ms (24.8 days); a later expiry is reached in several steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** Keys longer than this are found by their last {@link SLOT_CHARS} characters (see {@link slotOf}). */
const SLOT_CHARS = 48;

/**
 * Pure: where `key` lives in the cache's map. V8 hashes every character of a string used as
 * a Map key, and a fresh string per request (a parsed body) is hashed afresh: for a sealed
 * blob of kilobytes that measured 6 % of the cache-hit path's CPU. So a long key is found by its
 * tail — the end of a blob is its AES-GCM tag, random per sealing — and the entry keeps the
 * whole key, which a read compares (a memory comparison). Keys with the same tail share one
 * slot: the later replaces the earlier (a miss for it, never another key's value).
 */
export function slotOf(key: string): string {
  return key.length <= SLOT_CHARS ? key : key.slice(-SLOT_CHARS);
}

interface Entry {
  readonly key: string;
  /** `slotOf(key)`, a slice of the entry's own key: re-inserting under the request's slice would keep that request's copy of the key alive. */
  readonly slot: string;
  readonly value: Buffer;
  readonly expiresAt: number;
  readonly size: number;
}

export interface SecretCacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly hits: number;
  readonly misses: number;
  readonly expired: number;
  readonly evicted: number;
}

/**
 * Decrypted secrets, in memory only, each for the time its policy allows
 * (`decrypt_cache_timeout`), bounded by bytes and entries with least-recently-used eviction.
 * An entry is dropped — its buffer overwritten with zeros — when it expires (a timer on the
 * injected clock fires at the earliest expiry; a read past expiry also drops it), when it is
 * evicted, and on `clear()`. The cache keeps its own copy of each value. It never writes
 * anything anywhere and never logs.
 */
export class SecretCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private counts = { hits: 0, misses: 0, expired: 0, evicted: 0 };
  private sweep: { at: number; cancel: () => void } | undefined;
  readonly limits: SecretCacheLimits;

  constructor(
    private readonly timers: SiteTimers,
    limits: Partial<SecretCacheLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SECRET_CACHE_LIMITS, ...limits };
    if (!(this.limits.maxBytes >= 0 && this.limits.maxEntries >= 0)) throw new Error('the secret cache limits must be zero or more');
  }

  /** The value under `key` while it has not expired (a copy the caller may keep); marks it recently used. */
  get(key: string): Buffer | undefined {
    return this.read(key, (value) => Buffer.from(value));
  }

  /**
   * `use` applied to the value under `key` while it has not expired (undefined otherwise);
   * marks it recently used. `use` sees the cache's own buffer, without a copy: it must not
   * keep or modify it (the buffer is zeroed when the entry goes). For the hot path that only
   * encodes the value, e.g. `read(key, (v) => v.toString('base64'))`.
   */
  read<T>(key: string, use: (value: Buffer) => T): T | undefined {
    const slot = slotOf(key);
    const entry = this.entries.get(slot);
    if (entry === undefined || entry.key !== key) {
      this.counts.misses++;
      return undefined;
    }
    if (this.timers.now() >= entry.expiresAt) {
      this.drop(slot, entry);
      this.counts.expired++;
      this.counts.misses++;
      return undefined;
    }
    // Map order is insertion order: re-inserting makes it the most recently used.
    this.entries.delete(slot);
    this.entries.set(entry.slot, entry);
    this.counts.hits++;
    return use(entry.value);
  }

  /** Keeps a copy of `value` for `ttlMs` (nothing when ttlMs ≤ 0 or the value alone exceeds the byte limit). */
  set(key: string, value: Buffer, ttlMs: number): void {
    const slot = slotOf(key);
    const existing = this.entries.get(slot);
    if (existing !== undefined) {
      this.drop(slot, existing);
      if (existing.key !== key) this.counts.evicted++;
    }
    const size = value.length + key.length + ENTRY_OVERHEAD_BYTES;
    if (!(ttlMs > 0) || size > this.limits.maxBytes || this.limits.maxEntries === 0) return;
    while (this.entries.size >= this.limits.maxEntries || this.bytes + size > this.limits.maxBytes) this.evictOldest();
    const entry: Entry = { key, slot, value: Buffer.from(value), expiresAt: this.timers.now() + ttlMs, size };
    this.entries.set(slot, entry);
    this.bytes += size;
    this.planSweep(entry.expiresAt);
  }

  /** Drops everything (zeroing the values) and cancels the expiry timer. */
  clear(): void {
    for (const [slot, entry] of this.entries) this.drop(slot, entry);
    this.sweep?.cancel();
    this.sweep = undefined;
  }

  stats(): SecretCacheStats {
    return { entries: this.entries.size, bytes: this.bytes, ...this.counts };
  }

  private evictOldest(): void {
    const oldest = this.entries.entries().next();
    if (oldest.done === true) return;
    const [slot, entry] = oldest.value;
    this.drop(slot, entry);
    this.counts.evicted++;
  }

  private drop(slot: string, entry: Entry): void {
    this.entries.delete(slot);
    this.bytes -= entry.size;
    entry.value.fill(0);
  }

  /** One timer, at the earliest expiry; it drops what has expired and plans the next. */
  private planSweep(at: number): void {
    const now = this.timers.now();
    const fireAt = Math.min(at, now + LONGEST_TIMER_MS);
    if (this.sweep !== undefined && this.sweep.at <= fireAt) return;
    this.sweep?.cancel();
    const cancel = this.timers.schedule(() => this.expire(), Math.max(0, fireAt - now));
    this.sweep = { at: fireAt, cancel };
  }

  private expire(): void {
    this.sweep = undefined;
    const now = this.timers.now();
    let next = Infinity;
    for (const [slot, entry] of this.entries) {
      if (now >= entry.expiresAt) {
        this.drop(slot, entry);
        this.counts.expired++;
      } else next = Math.min(next, entry.expiresAt);
    }
    if (next !== Infinity) this.planSweep(next);
  }
}
