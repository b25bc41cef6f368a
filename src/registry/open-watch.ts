import { StatusError } from '../apimachinery/errors/status-error.js';
import type { StoreError } from '../store/errors.js';
import type { WatchEvent } from '../store/types.js';
import type { CacheSubscription, WatchCache, WatchSink } from '../store/watch-cache.js';
import type { KubeObject } from '../apimachinery/object.js';
import { matchesQuery, parseResourceVersion, type ListQuery } from './list.js';
import type { ObjectCodec } from './object-codec.js';
import type { Strategy } from './strategy.js';

export type KubeWatchEvent =
  | {
      readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
      readonly object: KubeObject;
      /** The watch cache's event this one was made from (absent for a watch's initial state): its encoding is shared by every watch that gets it. */
      readonly cause?: WatchEvent;
    }
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly object: Record<string, unknown> };

/** What a client watch selects and how: the list query's selectors and resourceVersion. */
export interface WatchSelection extends Pick<ListQuery, 'labelSelector' | 'fieldSelector' | 'resourceVersion'> {
  /** Send BOOKMARK events after this long without one (when the client allows them). */
  readonly bookmarkIntervalMs?: number;
}

export interface WatchSource {
  readonly cache: WatchCache;
  readonly codec: ObjectCodec;
  readonly strategy: Strategy;
  readonly prefix: string;
  /** Only keys it accepts are watched (a view over part of the prefix, e.g. one tenant's Nodes of `/sites/nodes/`). */
  readonly keyFilter?: (key: string) => boolean;
  /** Milliseconds on a monotonic clock, for bookmark intervals. Default `performance.now`. */
  readonly now?: () => number;
}

/**
 * The consumer of a client watch, called synchronously: the watch cache's fan-out reaches
 * it without a promise, queue or generator step per event. Events come in groups, each
 * followed by a {@link flush}.
 */
export interface KubeWatchSink {
  /** Events taken but not passed on yet: the watch cache closes a watch that falls `maxQueue` behind. */
  readonly backlog: number;
  /** One event; it may be held until {@link flush}. Must not throw. */
  event(event: KubeWatchEvent): void;
  /** The end of a group of events: pass them on now. Must not throw. */
  flush(): void;
  /** Resolves when the sink takes more again (awaited between the initial ADDED events). */
  drained(): Promise<void>;
  /** The watch ended, after its last event (an ERROR for 410 Expired). Never after {@link ClientWatch.close}. */
  end(): void;
}

/** An open client watch; `close()` stops it (idempotent, no `end` call). */
export interface ClientWatch {
  close(): void;
}

/**
 * A client watch, served by the resource's watch cache (never a store watch of its own):
 * - `resourceVersion` unset or "0": synthetic ADDED for every current object (sent with
 *   backpressure: the sink drains between them), then the changes after that list;
 * - `resourceVersion=N`: changes after N; an N older than the cache's window gives one
 *   ERROR event (410 Expired) and the end;
 * - selectors filter, and an object moving into / out of the selection is ADDED / DELETED;
 * - BOOKMARKs (when `bookmarkIntervalMs` is set) after that long without a change under the
 *   prefix, carrying a revision every event up to which has been delivered.
 * The watch ends ({@link KubeWatchSink.end}) when the cache closes it (too slow, relisted,
 * stopped); the client then watches again from its last resourceVersion. Throws a
 * StatusError (400) for a malformed resourceVersion before any event.
 */
export function openWatch(source: WatchSource, selection: WatchSelection, sink: KubeWatchSink): ClientWatch {
  const rv = selection.resourceVersion === undefined || selection.resourceVersion === '' ? 0 : parseResourceVersion(selection.resourceVersion);
  const watch = new FilteredWatch(source, selection, sink, rv);
  if (rv === 0) void watch.sendInitialState().catch(() => watch.end(undefined));
  else watch.subscribe(rv);
  return watch;
}

/** A client watch's state: its filter over the cache's events (it is their sink), its bookmark timer. */
class FilteredWatch implements ClientWatch, WatchSink {
  private subscription: CacheSubscription | undefined;
  private closed = false;
  private bookmarks: BookmarkTimer | undefined;

  constructor(
    private readonly source: WatchSource,
    private readonly selection: WatchSelection,
    private readonly sink: KubeWatchSink,
    private readonly requested: number,
  ) {}

  get backlog(): number {
    return this.sink.backlog;
  }

  /** Synthetic ADDED for the cache's current objects, then the changes after them. */
  async sendInitialState(): Promise<void> {
    const { source, selection, sink } = this;
    const { items, revision } = source.cache.list();
    for (const kv of items) {
      if (!kv.key.startsWith(source.prefix) || source.keyFilter?.(kv.key) === false) continue;
      const object = source.codec.decode(kv);
      if (!matchesQuery(object, selection, source.strategy)) continue;
      sink.event({ type: 'ADDED', object });
      sink.flush();
      if (sink.backlog > 0) await sink.drained();
      if (this.closed) return;
    }
    this.subscribe(revision);
  }

  subscribe(from: number): void {
    if (this.closed) return;
    const { source } = this;
    const interval = this.selection.bookmarkIntervalMs;
    if (interval !== undefined) this.bookmarks = new BookmarkTimer(interval, source.now ?? (() => performance.now()), () => this.bookmark());
    this.subscription = source.cache.subscribe(source.prefix, from, this);
  }

  /** A cache event (the cache's sink side). */
  event(event: WatchEvent): void {
    this.bookmarks?.touch();
    const kube = toKubeEvent(this.source, event, this.selection);
    if (kube !== undefined) this.sink.event(kube);
  }

  /** The end of a group of cache events. */
  flush(): void {
    this.sink.flush();
  }

  private bookmark(): void {
    if (this.closed) return;
    this.sink.event({ type: 'BOOKMARK', object: bookmarkObject(this.source.strategy, this.source.cache.revision) });
    this.sink.flush();
  }

  /** The cache ended the watch (or the initial state could not be sent). */
  end(error: StoreError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.bookmarks?.stop();
    if (error?.code === 'Compacted') {
      this.sink.event({ type: 'ERROR', object: StatusError.tooOldResourceVersion(this.requested, error.details.compactedRevision ?? 0).toStatus() });
      this.sink.flush();
    }
    this.sink.end();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.bookmarks?.stop();
    this.subscription?.close();
  }
}

/** The client's view of a cache event: filtered by its selectors, with selection transitions. */
function toKubeEvent(source: Pick<WatchSource, 'codec' | 'strategy' | 'keyFilter'>, event: WatchEvent, selection: WatchSelection): KubeWatchEvent | undefined {
  const { codec, strategy } = source;
  if (source.keyFilter?.(event.key) === false) return undefined;
  switch (event.type) {
    case 'ADDED': {
      const object = codec.decodeChange(event);
      return matchesQuery(object, selection, strategy) ? { type: 'ADDED', object, cause: event } : undefined;
    }
    case 'MODIFIED': {
      const object = codec.decodeChange(event);
      const now = matchesQuery(object, selection, strategy);
      const before = matchesQuery(codec.decodeBefore(event), selection, strategy);
      if (now) return { type: before ? 'MODIFIED' : 'ADDED', object, cause: event };
      return before ? { type: 'DELETED', object, cause: event } : undefined;
    }
    case 'DELETED': {
      const object = codec.decodeDeleted(event.prev, event.revision);
      return matchesQuery(object, selection, strategy) ? { type: 'DELETED', object, cause: event } : undefined;
    }
  }
}

/** A BOOKMARK's object: the watched kind with only `metadata.resourceVersion`. */
function bookmarkObject(strategy: Strategy, revision: number): KubeObject {
  const { group, version, kind } = strategy.resource;
  return { apiVersion: group === '' ? version : `${group}/${version}`, kind, metadata: { resourceVersion: String(revision) } };
}

/**
 * Fires after `intervalMs` without a {@link touch} (and again after each further quiet
 * interval). One timer per watch that only rearms when it fires: a touch per event is a
 * clock read, not a timer operation.
 */
class BookmarkTimer {
  private last: number;
  private timer: NodeJS.Timeout;

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
    private readonly fire: () => void,
  ) {
    this.last = now();
    this.timer = setTimeout(() => this.due(), intervalMs);
  }

  touch(): void {
    this.last = this.now();
  }

  private due(): void {
    const quiet = this.now() - this.last;
    if (quiet >= this.intervalMs) {
      this.fire();
      this.last = this.now();
      this.timer = setTimeout(() => this.due(), this.intervalMs);
    } else {
      this.timer = setTimeout(() => this.due(), this.intervalMs - quiet);
    }
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
