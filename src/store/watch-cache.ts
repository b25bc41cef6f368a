import type { Logger } from '../observability/logger.js';
import { StoreError } from './errors.js';
import { DEFAULT_SLICE_MS, FanOutSweep, type SweepPass, type SweepTarget } from './fan-out-sweep.js';
import { type CacheListener, type CacheLookup, PrefixCache } from './prefix-cache.js';
import type { KeyValue, Revision, Store, WatchEvent } from './types.js';
import { WatchIterator } from './watch-iterator.js';

export interface WatchCacheOptions {
  /** Recent events kept for watches that resume from a past revision. Default 1000. */
  readonly history?: number;
  /** Events a client watch may have queued before it is closed as too slow. Default 1000. */
  readonly maxQueue?: number;
  /** How long a slice of the fan-out runs before it yields to the event loop (ms; see {@link FanOutSweep}). */
  readonly sliceMs?: number;
  readonly logger?: Logger;
  /** Told about each pass of the fan-out when it ends (metrics). */
  readonly onPass?: (pass: SweepPass) => void;
}

/**
 * The consumer of a {@link WatchCache.subscribe} watch: called synchronously, in revision
 * order (no promise or queue per event and watcher). Each visit of the cache's fan-out
 * ({@link FanOutSweep}) hands a sink every event it has not had yet, followed by one
 * {@link flush}: the changes the cache applies in one go (a store commit's group of writes)
 * reach it together, and so do the events of several commits when the fan-out is busy.
 */
export interface WatchSink {
  /**
   * Events the consumer holds but has not passed on yet (a queue, a socket that does not
   * drain). Before each event the cache checks it: at its `maxQueue` it ends the watch with
   * `Unavailable` instead of delivering more.
   */
  readonly backlog: number;
  /** One event after the watch's position; more may follow before {@link flush}. Must not throw. */
  event(event: WatchEvent): void;
  /** The end of a group of events: pass them on now (one write for all of them). Must not throw. */
  flush(): void;
  /**
   * The cache ended the watch: `Compacted` (it started before the cache's window),
   * `Unavailable` (too slow, or the cache relisted), or no error (the cache stopped). Called at
   * most once, never after {@link CacheSubscription.close}; no event follows.
   */
  end(error?: StoreError): void;
}

/** A subscribed watch; closing it stops its events (idempotent, no `end` call). */
export interface CacheSubscription {
  close(): void;
}

/**
 * One store watch per resource prefix, fanned out to any number of client watches, after
 * kube-apiserver's cacher: a mirror of the current objects (lists at the cache's revision
 * need no store read), and a window of recent events so a watch can resume from a recent
 * revision. A watch from before that window fails with `Compacted` (HTTP 410 Expired to
 * clients, which then relist). A client that does not keep up is closed with `Unavailable`
 * rather than holding memory. When the cache relists, open watches are closed the same way.
 *
 * Watches are pushed to ({@link subscribe}: a sink called synchronously per event) or pulled
 * ({@link watch}: an async iterator over such a sink).
 */
export class WatchCache implements CacheListener {
  private readonly cache: PrefixCache;
  private readonly history: WatchEvent[] = [];
  private readonly capacity: number;
  private readonly maxQueue: number;
  private readonly logger: Logger | undefined;
  /** Watches may resume from this revision or later: every event after it is in `history`. */
  private oldest: Revision = 0;
  private readonly subscriptions = new Set<Subscription>();
  private readonly sweep: FanOutSweep;

  constructor(store: Store, prefix: string, options: WatchCacheOptions = {}) {
    this.capacity = options.history ?? 1000;
    this.maxQueue = options.maxQueue ?? 1000;
    this.logger = options.logger;
    this.sweep = new FanOutSweep(this.subscriptions, options.sliceMs ?? DEFAULT_SLICE_MS, options.onPass);
    this.cache = new PrefixCache(store, prefix, options.logger, this);
  }

  /** Lists and starts watching; resolves when the first list is in. */
  start(): Promise<void> {
    return this.cache.start();
  }

  stop(): void {
    this.cache.stop();
    this.sweep.reset();
    for (const subscription of [...this.subscriptions]) subscription.end();
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
    this.sweep.reset();
    this.oldest = revision;
    const error = StoreError.unavailable('the watch cache relisted; start the watch again from a fresh list');
    for (const subscription of [...this.subscriptions]) subscription.end(error);
  }

  changed(event: WatchEvent): void {
    this.history.push(event);
    if (this.history.length > this.capacity) this.oldest = this.history.shift()?.revision ?? this.oldest;
    this.sweep.add(event);
  }

  /**
   * Pushes the events under `prefix` (inside the cache's prefix) after `fromRevision` (the
   * cache's current revision when unset) to `sink`. The recent events it asks for (those
   * applied but not fanned out yet included) are delivered before this returns, and live
   * ones follow without a gap or a repeat: the watch's position skips what it already had. A `fromRevision` before the cache's window ends the watch with
   * `Compacted` before this returns.
   */
  subscribe(prefix: string, fromRevision: Revision | undefined, sink: WatchSink): CacheSubscription {
    const from = fromRevision ?? this.cache.revision;
    const subscription = new Subscription(prefix, from, sink, this.subscriptions, this.maxQueue, this.logger);
    subscription.next = this.sweep.head;
    if (from < this.oldest) {
      subscription.end(StoreError.compacted(from, this.oldest));
      return subscription;
    }
    const recent = this.history.filter((event) => event.revision > from);
    if (recent.length > 0) subscription.deliver(recent, 0, recent.length, Number.MAX_SAFE_INTEGER);
    if (!subscription.ended) this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * {@link subscribe} as an async iterator: the events after `fromRevision`, queued until read.
   * It throws the error that ended the watch after the queued events, and completes when
   * `signal` aborts or `return()` is called.
   */
  watch(prefix: string, options: { fromRevision?: Revision; signal?: AbortSignal } = {}): AsyncIterableIterator<WatchEvent> {
    const watcher = new CacheWatcher();
    watcher.subscription = this.subscribe(prefix, options.fromRevision, watcher);
    return watcher.endOn(options.signal);
  }

  get watcherCount(): number {
    return this.subscriptions.size;
  }
}

/** One watch's place in the fan-out: its key range, its position, its sink. */
class Subscription implements CacheSubscription, SweepTarget {
  ended = false;
  next = 0;

  constructor(
    private readonly prefix: string,
    private position: Revision,
    private readonly sink: WatchSink,
    private readonly registry: Set<Subscription>,
    private readonly maxQueue: number,
    private readonly logger: Logger | undefined,
  ) {}

  offer(events: readonly WatchEvent[], from: number, to: number): number {
    return this.deliver(events, from, to, this.maxQueue);
  }

  /**
   * Delivers the events of `events[from..to)` (in revision order) this watch has not had,
   * then a flush; returns how many it delivered.
   */
  deliver(events: readonly WatchEvent[], from: number, to: number, maxQueue: number): number {
    let delivered = 0;
    try {
      for (let i = from; i < to; i++) {
        const event = events[i] as WatchEvent;
        if (event.revision <= this.position || !event.key.startsWith(this.prefix)) continue;
        if (this.sink.backlog >= maxQueue) {
          if (delivered > 0) this.sink.flush();
          this.end(StoreError.unavailable(`the watch fell more than ${maxQueue} events behind and was closed; watch again from revision ${this.position}`));
          return delivered;
        }
        this.position = event.revision;
        this.sink.event(event);
        delivered++;
      }
      if (delivered > 0) this.sink.flush();
    } catch (error) {
      // A sink breaking its contract must not stop the fan-out to the others.
      this.logger?.error({ err: error instanceof Error ? error.message : String(error), prefix: this.prefix }, 'watch sink failed; closing the watch');
      this.end(StoreError.unavailable('the watch failed', error));
    }
    return delivered;
  }

  /** Ends the watch from the cache's side, telling the sink. */
  end(error?: StoreError): void {
    if (this.ended) return;
    this.close();
    this.sink.end(error);
  }

  close(): void {
    this.ended = true;
    this.registry.delete(this);
  }
}

/** A pulled watch: a sink that queues events for an async iterator. */
class CacheWatcher extends WatchIterator implements WatchSink {
  subscription: CacheSubscription | undefined;

  get backlog(): number {
    return this.queued;
  }

  event(event: WatchEvent): void {
    this.push(event);
  }

  flush(): void {
    // Each event is readable as soon as it is queued.
  }

  end(error?: StoreError): void {
    if (error === undefined) this.finish();
    else this.fail(error);
  }

  protected refill(): boolean {
    return true;
  }

  protected release(): void {
    this.subscription?.close();
  }
}
