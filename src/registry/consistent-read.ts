import type { KeyValue, Store } from '../store/types.js';
import type { WatchCache } from '../store/watch-cache.js';

/** How long a read waits for the watch cache to catch up before it reads the store (kube's 3 s). */
const CONSISTENT_READ_WAIT_MS = 3000;

/** Where a consistent read goes: the store and the watch cache of the key's resource. */
export interface ConsistentReadSource {
  readonly store: Store;
  readonly cache: WatchCache;
  /** The signal that ends the wait for the cache (default: {@link CONSISTENT_READ_WAIT_MS}). */
  readonly waitLimit?: () => AbortSignal;
}

const defaultWaitLimit = (): AbortSignal => AbortSignal.timeout(CONSISTENT_READ_WAIT_MS);

/**
 * Whether the watch cache reflects the store as it is now (every write acknowledged before
 * the call applied), waiting up to the wait limit for it to catch up: kube 1.31's
 * precondition for serving a read without resourceVersion from the cache. False when the
 * store has no progress notifications, the cache is not synced, or it could not catch up in time.
 */
export async function cacheIsCurrent(source: ConsistentReadSource): Promise<boolean> {
  const { store, cache } = source;
  if (store.requestProgress === undefined) return false;
  const revision = await store.currentRevision();
  return cache.isCurrentAt(revision) || (await cache.freshAt(revision, (source.waitLimit ?? defaultWaitLimit)()));
}

/**
 * The most recent value of `key` (a read without a resourceVersion), served from the watch
 * cache by kube 1.31's "consistent reads from cache" rule: read the store's current revision
 * (cheap), wait until the cache has applied every write up to it, then answer from memory —
 * the same answer a read from the store would give, so a client reads its own writes and
 * never an older state than an acknowledged write. Reads the store instead when the store has
 * no progress notifications (the cache could not tell it is fresh), when the cache is not
 * synced, or when it has not caught up within the wait limit.
 */
export async function readConsistent(source: ConsistentReadSource, key: string): Promise<KeyValue | undefined> {
  return (await readConsistentFrom(source, key)).kv;
}

/** {@link readConsistent}, telling whether the value is the cache's (long-lived, shared) or read from the store for this call. */
export async function readConsistentFrom(source: ConsistentReadSource, key: string): Promise<{ readonly kv: KeyValue | undefined; readonly cached: boolean }> {
  const { store, cache } = source;
  if (!(await cacheIsCurrent(source))) return { kv: await store.get(key), cached: false };
  const found = cache.lookup(key);
  switch (found.state) {
    case 'present':
      return { kv: found.kv, cached: true };
    case 'absent':
      return { kv: undefined, cached: true };
    case 'unsynced':
      return { kv: await store.get(key), cached: false };
  }
}
