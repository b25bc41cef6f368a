import type { Logger } from '../observability/logger.js';
import { isStoreError } from './errors.js';
import type { KeyValue, Revision, Store, WatchEvent } from './types.js';

/** Told about every change the cache applies from the store, in order. */
export interface CacheListener {
  /** The cache (re)listed: its whole state is `items` at `revision`; earlier events may be lost. */
  relisted(items: readonly KeyValue[], revision: Revision): void;
  /** One change from the store's watch, after the cache applied it. */
  changed(event: WatchEvent): void;
}

/** What a cache lookup knows: the value, its absence, or nothing yet. */
export type CacheLookup = { readonly state: 'present'; readonly kv: KeyValue } | { readonly state: 'absent' } | { readonly state: 'unsynced' };

/**
 * An in-memory mirror of the keys under a prefix, kept by list-then-watch (a small
 * informer): relists when its watch falls below the compacted revision, retries with a
 * pause when the store is unavailable. Writes this process makes can be applied at once
 * with {@link observe}, so the process reads its own writes; other processes' writes arrive
 * through the watch. On a store with progress notifications ({@link Store.requestProgress})
 * the cache's revision also moves past writes outside its prefix, so {@link freshAt} can tell
 * whether it reflects the store at a revision (kube's consistent reads from the cache).
 */
export class PrefixCache {
  private readonly entries = new Map<string, KeyValue>();
  /** The keys of `entries` in order (built on the first ordered read, then kept in order). */
  private sortedKeys: string[] | undefined;
  private synced = false;
  private readonly controller = new AbortController();
  private readonly deletedAt = new Map<string, Revision>();

  private lastRevision: Revision = 0;
  /** Reads waiting for the cache to reach a revision ({@link freshAt}). */
  private readonly waiters = new Set<{ readonly revision: Revision; readonly resolve: (fresh: boolean) => void }>();

  constructor(
    private readonly store: Store,
    readonly prefix: string,
    private readonly logger?: Logger,
    private readonly listener?: CacheListener,
  ) {}

  /** The store revision the cache reflects (its list's, or its latest event's). */
  get revision(): Revision {
    return this.lastRevision;
  }

  /** Starts the list-then-watch loop in the background; resolves once the first list is in. */
  start(): Promise<void> {
    let signalSynced: () => void = () => undefined;
    const firstSync = new Promise<void>((resolve) => (signalSynced = resolve));
    void this.run(signalSynced);
    return firstSync;
  }

  private async run(onSynced: () => void): Promise<void> {
    const { signal } = this.controller;
    while (!signal.aborted) {
      try {
        const revision = await this.relist();
        this.listener?.relisted([...this.entries.values()], revision);
        onSynced();
        const onProgress = this.store.requestProgress === undefined ? undefined : (at: Revision): void => this.advance(at);
        for await (const event of this.store.watch(this.prefix, { fromRevision: revision, signal, onProgress })) {
          if (event.type === 'DELETED') this.remove(event.key, event.revision);
          else this.put(event.kv);
          this.lastRevision = event.revision;
          this.listener?.changed(event);
          if (this.waiters.size > 0) this.advance(event.revision);
        }
      } catch (error) {
        if (signal.aborted) return;
        this.synced = isStoreError(error, 'Compacted') ? this.synced : false;
        this.logger?.warn({ prefix: this.prefix, err: error instanceof Error ? error.message : String(error) }, 'cache watch ended; relisting');
        await new Promise((r) => setTimeout(r, isStoreError(error, 'Compacted') ? 0 : 1000).unref());
      }
    }
  }

  private async relist(): Promise<Revision> {
    const fresh = new Map<string, KeyValue>();
    let token: string | undefined;
    let revision = 0;
    do {
      const page = await this.store.list(this.prefix, { limit: 1000, ...(token === undefined ? {} : { continue: token }) });
      for (const kv of page.items) fresh.set(kv.key, kv);
      revision = page.revision;
      token = page.continue;
    } while (token !== undefined);
    this.entries.clear();
    this.sortedKeys = undefined;
    for (const [key, kv] of fresh) this.entries.set(key, kv);
    this.deletedAt.clear();
    this.synced = true;
    this.lastRevision = revision;
    this.advance(revision);
    return revision;
  }

  /** The store's progress: every write up to `revision` is applied. Wakes the reads waiting for it. */
  private advance(revision: Revision): void {
    if (revision > this.lastRevision) this.lastRevision = revision;
    for (const waiter of this.waiters) {
      if (waiter.revision <= this.lastRevision) {
        this.waiters.delete(waiter);
        waiter.resolve(true);
      }
    }
  }

  /** Whether the cache is synced and reflects the store at `revision` or later, now (see {@link freshAt}). */
  isCurrentAt(revision: Revision): boolean {
    return this.synced && this.lastRevision >= revision;
  }

  /**
   * Whether the cache reflects the store at `revision` or later — every write up to it is
   * applied — so a lookup answers as a read from the store would (read-your-writes included).
   * Waits for the watch to catch up (asking the store for progress) until `signal` aborts;
   * false at once when the cache cannot tell: not synced, or the store has no progress
   * notifications.
   */
  async freshAt(revision: Revision, signal: AbortSignal): Promise<boolean> {
    if (!this.synced || this.store.requestProgress === undefined) return false;
    if (this.lastRevision >= revision) return true;
    this.store.requestProgress();
    if (this.lastRevision >= revision) return true;
    if (signal.aborted) return false;
    return new Promise<boolean>((resolve) => {
      const waiter = { revision, resolve };
      this.waiters.add(waiter);
      signal.addEventListener(
        'abort',
        () => {
          if (this.waiters.delete(waiter)) resolve(false);
        },
        { once: true },
      );
    });
  }

  private put(kv: KeyValue): void {
    const current = this.entries.get(kv.key);
    if (current !== undefined && current.modRevision >= kv.modRevision) return;
    if ((this.deletedAt.get(kv.key) ?? 0) >= kv.modRevision) return;
    if (current === undefined && this.sortedKeys !== undefined) this.sortedKeys.splice(firstAtOrAfter(this.sortedKeys, kv.key), 0, kv.key);
    this.entries.set(kv.key, kv);
  }

  private remove(key: string, revision: Revision): void {
    const current = this.entries.get(key);
    if (current !== undefined && current.modRevision > revision) return;
    if (this.entries.delete(key) && this.sortedKeys !== undefined) this.sortedKeys.splice(firstAtOrAfter(this.sortedKeys, key), 1);
    this.deletedAt.set(key, revision);
  }

  /** Applies a write this process just made, before its watch event arrives. */
  observe(write: { readonly kv: KeyValue } | { readonly deleted: string; readonly revision: Revision }): void {
    if ('kv' in write) this.put(write.kv);
    else this.remove(write.deleted, write.revision);
  }

  /** The cached key-values under `prefix` (every one by default), in key order. */
  items(prefix = ''): KeyValue[] {
    const keys = (this.sortedKeys ??= [...this.entries.keys()].sort());
    const items: KeyValue[] = [];
    for (let i = firstAtOrAfter(keys, prefix); i < keys.length; i++) {
      const key = keys[i] ?? '';
      if (!key.startsWith(prefix)) break;
      const kv = this.entries.get(key);
      if (kv !== undefined) items.push(kv);
    }
    return items;
  }

  lookup(key: string): CacheLookup {
    if (!this.synced) return { state: 'unsynced' };
    const kv = this.entries.get(key);
    return kv === undefined ? { state: 'absent' } : { state: 'present', kv };
  }

  /**
   * The key's value from memory when present; otherwise read from the store (a key this
   * cache has not seen yet may have just been written by another process).
   */
  async get(key: string): Promise<KeyValue | undefined> {
    const found = this.lookup(key);
    return found.state === 'present' ? found.kv : this.store.get(key);
  }

  stop(): void {
    this.controller.abort();
    this.synced = false;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters.clear();
  }
}

/** The index of the first of the sorted `keys` at or after `key` (binary search). */
function firstAtOrAfter(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((keys[middle] ?? '') < key) low = middle + 1;
    else high = middle;
  }
  return low;
}
