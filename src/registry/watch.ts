import { StatusError } from '../apimachinery/errors/status-error.js';
import { isStoreError } from '../store/errors.js';
import type { WatchCache } from '../store/watch-cache.js';
import type { WatchEvent } from '../store/types.js';
import type { KubeObject } from '../vk8s/object.js';
import { matchesQuery, parseResourceVersion, type ListQuery } from './list.js';
import type { ObjectCodec } from './object-codec.js';
import type { Strategy } from './strategy.js';

export type KubeWatchEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: KubeObject }
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject }
  | { readonly type: 'ERROR'; readonly object: Record<string, unknown> };

export interface WatchQuery extends Pick<ListQuery, 'labelSelector' | 'fieldSelector' | 'resourceVersion'> {
  /** Send BOOKMARK events after this long without one (when the client allows them). */
  readonly bookmarkIntervalMs?: number;
  readonly signal: AbortSignal;
}

interface WatchSource {
  readonly cache: WatchCache;
  readonly codec: ObjectCodec;
  readonly strategy: Strategy;
  readonly prefix: string;
  /** Only keys it accepts are watched (a view over part of the prefix). */
  readonly keyFilter?: (key: string) => boolean;
}

/**
 * A client watch, served by the resource's watch cache (never a store watch of its own):
 * - `resourceVersion` unset or "0": synthetic ADDED for every current object, then changes;
 * - `resourceVersion=N`: changes after N; an N older than the cache's window gives one
 *   ERROR event (410 Expired) and the end;
 * - selectors filter, and an object moving into / out of the selection is ADDED / DELETED;
 * - BOOKMARKs carry a revision every event up to which has been delivered.
 * The stream ends when the signal aborts or the cache closes the watch (the client then
 * watches again from its last resourceVersion).
 */
export async function* watchObjects(source: WatchSource, query: WatchQuery): AsyncGenerator<KubeWatchEvent> {
  const rv = query.resourceVersion === undefined || query.resourceVersion === '' ? 0 : parseResourceVersion(query.resourceVersion);
  let from = rv;
  if (rv === 0) {
    const { items, revision } = source.cache.list();
    for (const kv of items) {
      if (!kv.key.startsWith(source.prefix) || source.keyFilter?.(kv.key) === false) continue;
      const object = source.codec.decode(kv);
      if (matchesQuery(object, query, source.strategy)) yield { type: 'ADDED', object };
    }
    from = revision;
  }
  const iterator = source.cache.watch(source.prefix, { fromRevision: from, signal: query.signal });
  const idle = query.bookmarkIntervalMs === undefined ? undefined : new IdleTimer(query.bookmarkIntervalMs);
  let pending: Promise<IteratorResult<WatchEvent>> | undefined;
  try {
    for (;;) {
      pending ??= iterator.next();
      const next = idle === undefined ? await pending : await idle.race(pending);
      if (next === 'timer') {
        // The cache feeds watchers synchronously: with nothing queued for us, every event up
        // to the cache's revision has been delivered.
        yield { type: 'BOOKMARK', object: bookmark(source.strategy, source.cache.revision) };
        continue;
      }
      pending = undefined;
      if (next.done === true) return;
      const event = toKubeEvent(source, next.value, query);
      if (event !== undefined) yield event;
    }
  } catch (error) {
    if (isStoreError(error, 'Compacted')) {
      yield { type: 'ERROR', object: StatusError.tooOldResourceVersion(rv, error.details.compactedRevision ?? 0).toStatus() };
      return;
    }
    if (isStoreError(error, 'Unavailable') || query.signal.aborted) return;
    throw error;
  } finally {
    idle?.stop();
    await iterator.return?.();
  }
}

function toKubeEvent(source: WatchSource, event: WatchEvent, query: WatchQuery): KubeWatchEvent | undefined {
  const { codec, strategy } = source;
  if (source.keyFilter?.(event.key) === false) return undefined;
  switch (event.type) {
    case 'ADDED': {
      const object = codec.decode(event.kv);
      return matchesQuery(object, query, strategy) ? { type: 'ADDED', object } : undefined;
    }
    case 'MODIFIED': {
      const object = codec.decode(event.kv);
      const now = matchesQuery(object, query, strategy);
      const before = matchesQuery(codec.decode(event.prev), query, strategy);
      if (now) return { type: before ? 'MODIFIED' : 'ADDED', object };
      return before ? { type: 'DELETED', object } : undefined;
    }
    case 'DELETED': {
      const object = codec.decodeDeleted(event.prev, event.revision);
      return matchesQuery(object, query, strategy) ? { type: 'DELETED', object } : undefined;
    }
  }
}

/** A BOOKMARK's object: the watched kind with only `metadata.resourceVersion`. */
function bookmark(strategy: Strategy, revision: number): KubeObject {
  const { group, version, kind } = strategy.resource;
  return { apiVersion: group === '' ? version : `${group}/${version}`, kind, metadata: { resourceVersion: String(revision) } };
}

/**
 * One timer per watch, restarted each time the watch waits for an event: {@link race}
 * resolves to 'timer' when the wait lasts the whole interval. (A timer and an abort listener
 * per event cost more than the rest of a watch's work for that event.)
 */
export class IdleTimer {
  private wake: ((value: 'timer') => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.wake?.('timer'), ms);
  }

  race<T>(promise: Promise<T>): Promise<T | 'timer'> {
    this.timer.refresh();
    return new Promise((resolve, reject) => {
      this.wake = resolve;
      promise.then(resolve, (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
    });
  }

  stop(): void {
    clearTimeout(this.timer);
    this.wake = undefined;
  }
}
