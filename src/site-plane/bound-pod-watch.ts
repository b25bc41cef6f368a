import { StatusError } from '../apimachinery/errors/status-error.js';
import { parseObjectKey } from '../controllers/runtime/object-key.js';
import type { ObjectCodec } from '../registry/object-codec.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import { IdleTimer } from '../registry/idle-timer.js';
import { isStoreError } from '../store/errors.js';
import type { KeyValue, WatchEvent } from '../store/types.js';
import type { WatchCache } from '../store/watch-cache.js';
import type { KubeObject } from '../apimachinery/object.js';
import { POD_SITE_LABEL } from '../site-api/site-model.js';

export type BoundPodEvent =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly cluster: ClusterRef; readonly object: KubeObject }
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject };

export interface BoundPodSource {
  /** The pods resource's watch cache (every cluster of every tenant). */
  readonly cache: WatchCache;
  readonly codec: ObjectCodec;
  /** The pods resource prefix (`/vk8s/core/pods/`). */
  readonly prefix: string;
}

export interface BoundPodQuery {
  /** The agent's sites now (read at each event, so sites it registers later count at once). */
  readonly sites: () => ReadonlySet<string>;
  /** Resume after this revision; unset: the current pods first, as ADDED. */
  readonly resourceVersion?: number;
  readonly bookmarkIntervalMs: number;
  readonly signal: AbortSignal;
}

/** Pure: is the pod bound (`spec.nodeName` set) and made for one of `sites` (its `svc.io/siteName` label)? */
export function isBoundToSites(pod: KubeObject, sites: ReadonlySet<string>): boolean {
  const nodeName = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName;
  const site = pod.metadata.labels?.[POD_SITE_LABEL];
  return nodeName !== undefined && nodeName !== '' && site !== undefined && sites.has(site);
}

/**
 * The pods bound to an agent's sites, across every tenant and virtual cluster, from ONE
 * subscription to the pods watch cache: the current ones as ADDED (unless resuming from
 * `resourceVersion`, followed by a BOOKMARK), then changes, a pod entering or leaving the selection (bound,
 * relabelled) as ADDED / DELETED; a BOOKMARK after each quiet `bookmarkIntervalMs`. A
 * revision older than the cache's window throws a 410 Expired StatusError before any event.
 * Ends when the signal aborts or the cache closes the watch (the agent resumes from its last
 * resourceVersion).
 */
export async function* watchBoundPods(source: BoundPodSource, query: BoundPodQuery): AsyncGenerator<BoundPodEvent> {
  let from = query.resourceVersion;
  if (from === undefined) {
    const { items, revision } = source.cache.list();
    for (const kv of items) {
      const event = current(source, kv, query.sites());
      if (event !== undefined) yield event;
    }
    from = revision;
    // The end of the initial list, at once (as Kubernetes' initial-events-end bookmark): the agent then knows which of its sandboxes no pod owns.
    yield { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: String(revision) } } };
  }
  const iterator = source.cache.watch(source.prefix, { fromRevision: from, signal: query.signal });
  const idle = new IdleTimer(query.bookmarkIntervalMs);
  let pending: Promise<IteratorResult<WatchEvent>> | undefined;
  try {
    for (;;) {
      pending ??= iterator.next();
      const next = await idle.race(pending);
      if (next === 'timer') {
        yield { type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: String(source.cache.revision) } } };
        continue;
      }
      pending = undefined;
      if (next.done === true) return;
      const event = change(source, next.value, query.sites());
      if (event !== undefined) yield event;
    }
  } catch (error) {
    if (isStoreError(error, 'Compacted')) throw StatusError.tooOldResourceVersion(from, error.details.compactedRevision ?? 0);
    if (isStoreError(error, 'Unavailable') || query.signal.aborted) return;
    throw error;
  } finally {
    idle.stop();
    await iterator.return?.();
  }
}

function clusterOf(source: BoundPodSource, key: string): ClusterRef | undefined {
  return parseObjectKey(source.prefix, key)?.cluster;
}

function current(source: BoundPodSource, kv: KeyValue, sites: ReadonlySet<string>): BoundPodEvent | undefined {
  const cluster = clusterOf(source, kv.key);
  if (cluster === undefined) return undefined;
  const object = source.codec.decode(kv);
  return isBoundToSites(object, sites) ? { type: 'ADDED', cluster, object } : undefined;
}

function change(source: BoundPodSource, event: WatchEvent, sites: ReadonlySet<string>): BoundPodEvent | undefined {
  const cluster = clusterOf(source, event.key);
  if (cluster === undefined) return undefined;
  const { codec } = source;
  switch (event.type) {
    case 'ADDED': {
      const object = codec.decode(event.kv);
      return isBoundToSites(object, sites) ? { type: 'ADDED', cluster, object } : undefined;
    }
    case 'MODIFIED': {
      const object = codec.decode(event.kv);
      const now = isBoundToSites(object, sites);
      const before = isBoundToSites(codec.decode(event.prev), sites);
      if (now) return { type: before ? 'MODIFIED' : 'ADDED', cluster, object };
      return before ? { type: 'DELETED', cluster, object } : undefined;
    }
    case 'DELETED': {
      const object = codec.decodeDeleted(event.prev, event.revision);
      return isBoundToSites(object, sites) ? { type: 'DELETED', cluster, object } : undefined;
    }
  }
}
