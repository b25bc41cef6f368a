import type { Logger } from '../observability/logger.js';
import { StoreError } from './errors.js';
import { type CacheListener, type CacheLookup, PrefixCache } from './prefix-cache.js';
import type { KeyValue, Revision, Store, WatchEvent } from './types.js';
import { WatchIterator } from './watch-iterator.js';

export interface WatchCacheOptions {
  /** Recent events kept for watches that resume from a past revision. Default 1000. */
  readonly history?: number;
  /** Events a client watch may have queued before it is closed as too slow. Default 1000. */
  readonly maxQueue?: number;
  readonly logger?: Logger;
}

/**
 * One store watch per resource prefix, fanned out to any number of client watches, after
 * kube-apiserver's cacher: a mirror of the current objects (lists at the cache's revision
 * need no store read), and a window of recent events so a watch can resume from a recent
 * revision. A watch from before that window fails with `Compacted` (HTTP 410 Expired to
 * clients, which then relist). A client that does not keep up is closed with `Unavailable`
 * rather than holding memory. When the cache relists, open watches are closed the same way.
 */
export class WatchCache implements CacheListener {
  private readonly cache: PrefixCache;
  private readonly history: WatchEvent[] = [];
  private readonly capacity: number;
  private readonly maxQueue: number;
  /** Watches may resume from this revision or later: every event after it is in `history`. */
  private oldest: Revision = 0;
  private readonly watchers = new Set<CacheWatcher>();

  constructor(store: Store, prefix: string, options: WatchCacheOptions = {}) {
    this.capacity = options.history ?? 1000;
    this.maxQueue = options.maxQueue ?? 1000;
    this.cache = new PrefixCache(store, prefix, options.logger, this);
  }

  /** Lists and starts watching; resolves when the first list is in. */
  start(): Promise<void> {
    return this.cache.start();
  }

  stop(): void {
    this.cache.stop();
    for (const watcher of [...this.watchers]) watcher.finish();
  }

  /** The cache's revision: lists and watches it serves are consistent at it. */
  get revision(): Revision {
    return this.cache.revision;
  }

  /** Every object under the prefix (or under `within`, inside it) at {@link revision}, in key order, from memory. */
  list(within?: string): { items: KeyValue[]; revision: Revision } {
    return { items: this.cache.items(within), revision: this.cache.revision };
  }

  /** One key from memory (consistent reads: check {@link freshAt} first). */
  lookup(key: string): CacheLookup {
    return this.cache.lookup(key);
  }

  /** Whether the cache is synced and reflects the store at `revision`, now. */
  isCurrentAt(revision: Revision): boolean {
    return this.cache.isCurrentAt(revision);
  }

  /** Whether the cache reflects the store at `revision` (waits until `signal` aborts): {@link PrefixCache.freshAt}. */
  freshAt(revision: Revision, signal: AbortSignal): Promise<boolean> {
    return this.cache.freshAt(revision, signal);
  }

  relisted(_items: readonly KeyValue[], revision: Revision): void {
    this.history.length = 0;
    this.oldest = revision;
    for (const watcher of [...this.watchers]) watcher.fail(StoreError.unavailable('the watch cache relisted; start the watch again from a fresh list'));
  }

  changed(event: WatchEvent): void {
    this.history.push(event);
    if (this.history.length > this.capacity) this.oldest = this.history.shift()?.revision ?? this.oldest;
    for (const watcher of this.watchers) watcher.offer(event, this.maxQueue);
  }

  /**
   * Events under `prefix` (which must be inside the cache's prefix) after `fromRevision`;
   * from the cache's current revision when unset. Replay and live events join without a
   * gap: both happen synchronously here.
   */
  watch(prefix: string, options: { fromRevision?: Revision; signal?: AbortSignal } = {}): AsyncIterableIterator<WatchEvent> {
    const from = options.fromRevision ?? this.cache.revision;
    const watcher = new CacheWatcher(prefix, from, (w) => this.watchers.delete(w));
    if (from < this.oldest) {
      watcher.fail(StoreError.compacted(from, this.oldest));
      return watcher;
    }
    for (const event of this.history) if (event.revision > from) watcher.offer(event, Number.MAX_SAFE_INTEGER);
    this.watchers.add(watcher);
    return watcher.endOn(options.signal);
  }

  get watcherCount(): number {
    return this.watchers.size;
  }
}

class CacheWatcher extends WatchIterator {
  constructor(
    private readonly prefix: string,
    private position: Revision,
    private readonly onRelease: (watcher: CacheWatcher) => void,
  ) {
    super();
  }

  offer(event: WatchEvent, maxQueue: number): void {
    if (event.revision <= this.position || !event.key.startsWith(this.prefix)) return;
    if (this.queued >= maxQueue) {
      this.fail(StoreError.unavailable(`the watch fell more than ${maxQueue} events behind and was closed; watch again from revision ${this.position}`));
      return;
    }
    this.position = event.revision;
    this.push(event);
  }

  protected refill(): boolean {
    return true;
  }

  protected release(): void {
    this.onRelease(this);
  }
}
