import { LRUCache } from 'lru-cache';
import type { Timers } from '../../common/timers.js';

export interface SecretCacheLimits {
  /** Most bytes held: each entry counts its value's bytes plus its key's length plus 64. Default 16 MiB. */
  readonly maxBytes: number;
  /** Most entries held. Default 4096. */
  readonly maxEntries: number;
}

export const DEFAULT_SECRET_CACHE_LIMITS: SecretCacheLimits = { maxBytes: 16 * 1024 * 1024, maxEntries: 4096 };

/** Most entries a cache may be configured for: its recency lists are allocated up front, per entry. */
export const MAX_SECRET_CACHE_ENTRIES = 1_048_576;

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
 *
 * Recency and the bounds are `lru-cache`'s: a hit moves the entry within the cache's
 * preallocated arrays. Keeping recency as a JS Map's insertion order (delete and re-insert
 * on every hit) made V8 allocate a new hash table for the long-lived map on nearly every hit,
 * in the old generation where the map lives: a full mark-compact about every 1.5 s under
 * cache-hit load, and scavenges twice as long (see docs/SIDECAR.md). Expiry stays here, on
 * the injected clock (`lru-cache` would use its own timers). `lru-cache` publishes its
 * operations, values included, on the `lru-cache:metrics` diagnostics channel only while
 * something subscribes to it; nothing in the sidecar does.
 */
export class SecretCache {
  private readonly entries: LRUCache<string, Entry>;
  private counts = { hits: 0, misses: 0, expired: 0, evicted: 0 };
  private sweep: { at: number; cancel: () => void } | undefined;
  readonly limits: SecretCacheLimits;
  /** Caching is off (a zero limit): nothing is kept. */
  private readonly off: boolean;

  constructor(
    private readonly timers: Timers,
    limits: Partial<SecretCacheLimits> = {},
  ) {
    this.limits = { ...DEFAULT_SECRET_CACHE_LIMITS, ...limits };
    const { maxBytes, maxEntries } = this.limits;
    if (!(Number.isInteger(maxBytes) && Number.isInteger(maxEntries) && maxBytes >= 0 && maxEntries >= 0)) throw new Error('the secret cache limits must be whole numbers, zero or more');
    if (maxEntries > MAX_SECRET_CACHE_ENTRIES) throw new Error(`the secret cache holds at most ${MAX_SECRET_CACHE_ENTRIES} entries, not ${maxEntries}`);
    this.off = maxBytes === 0 || maxEntries === 0;
    this.entries = new LRUCache<string, Entry>({
      max: Math.max(1, maxEntries),
      maxSize: Math.max(1, maxBytes),
      // Every way out of the cache (evicted, replaced, expired, deleted, cleared) zeroes the value.
      dispose: (entry, _slot, reason) => {
        entry.value.fill(0);
        if (reason === 'evict') this.counts.evicted++;
      },
    });
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
    // peek: a key that only shares the slot does not make the entry recently used.
    const entry = this.entries.peek(slot);
    if (entry === undefined || entry.key !== key) {
      this.counts.misses++;
      return undefined;
    }
    if (this.timers.now() >= entry.expiresAt) {
      this.entries.delete(slot);
      this.counts.expired++;
      this.counts.misses++;
      return undefined;
    }
    this.entries.get(slot); // marks it the most recently used
    this.counts.hits++;
    return use(entry.value);
  }

  /** Keeps a copy of `value` for `ttlMs` (nothing when ttlMs ≤ 0 or the value alone exceeds the byte limit). */
  set(key: string, value: Buffer, ttlMs: number): void {
    const slot = slotOf(key);
    const existing = this.entries.peek(slot);
    if (existing !== undefined) {
      this.entries.delete(slot);
      if (existing.key !== key) this.counts.evicted++;
    }
    const size = value.length + key.length + ENTRY_OVERHEAD_BYTES;
    if (!(ttlMs > 0) || size > this.limits.maxBytes || this.off) return;
    const entry: Entry = { key, value: Buffer.from(value), expiresAt: this.timers.now() + ttlMs, size };
    this.entries.set(slot, entry, { size });
    this.planSweep(entry.expiresAt);
  }

  /** Drops everything (zeroing the values) and cancels the expiry timer. */
  clear(): void {
    this.entries.clear();
    this.sweep?.cancel();
    this.sweep = undefined;
  }

  stats(): SecretCacheStats {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize, ...this.counts };
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
    const expired: string[] = [];
    for (const [slot, entry] of this.entries.entries()) {
      if (now >= entry.expiresAt) expired.push(slot);
      else next = Math.min(next, entry.expiresAt);
    }
    for (const slot of expired) this.entries.delete(slot);
    this.counts.expired += expired.length;
    if (next !== Infinity) this.planSweep(next);
  }
}
