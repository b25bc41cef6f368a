import type { Logger } from '../../observability/logger.js';
import type { GenericStore } from '../../registry/generic-store.js';
import { resourcePrefix } from '../../registry/keys.js';
import type { KeyValue, WatchEvent } from '../../store/types.js';
import { nodeOf, type GraphNode } from './graph-node.js';
import type { OwnerGraph } from './owner-graph.js';

export interface GraphFeedOptions {
  readonly stores: readonly GenericStore[];
  readonly graph: OwnerGraph;
  /** Told the work items each change calls for. */
  readonly enqueue: (items: readonly string[]) => void;
  readonly logger: Logger;
  readonly signal: AbortSignal;
}

/**
 * Keeps the graph in line with every resource's watch cache (kube's GraphBuilder monitors):
 * loads every cache's current state, enqueues what needs a look, then applies each cache's
 * events. A cache watch that fails (the cache relisted, or this feed fell behind) is started
 * again from a fresh snapshot of the cache, which replaces that resource's nodes. Resolves
 * when `signal` aborts or the caches stop.
 */
export async function feedGraph(options: GraphFeedOptions): Promise<void> {
  const { graph, signal } = options;
  let loaded = false;
  const feeds = options.stores.map((store) => {
    const prefix = resourcePrefix(store.strategy.resource);
    const subscribe = (): AsyncIterableIterator<WatchEvent> => {
      const snapshot = store.cache.list();
      const events = store.cache.watch(prefix, { fromRevision: snapshot.revision, signal });
      const work = graph.replace(prefix, snapshot.items.flatMap((kv) => nodeAt(store, prefix, kv) ?? []));
      if (loaded) options.enqueue(work);
      return events;
    };
    return { store, prefix, subscribe, first: subscribe() };
  });
  // The first snapshots loaded one resource at a time, owners possibly after their
  // dependents: what needs a look is decided once all are in.
  loaded = true;
  options.enqueue(graph.attention());
  await Promise.all(
    feeds.map(async ({ store, prefix, subscribe, first }) => {
      let events = first;
      for (;;) {
        try {
          for await (const event of events) options.enqueue(apply(graph, store, prefix, event));
          return;
        } catch (error) {
          if (signal.aborted) return;
          options.logger.info({ prefix, err: error instanceof Error ? error.message : String(error) }, 'garbage collector graph watch ended; resyncing from the cache');
          await new Promise((resolve) => setTimeout(resolve, 100).unref());
          if (signal.aborted) return;
          events = subscribe();
        }
      }
    }),
  );
}

/** The node keeps a few fields of the object: the decoded object itself is not kept (nor memoized). */
function nodeAt(store: GenericStore, prefix: string, kv: KeyValue): GraphNode | undefined {
  return nodeOf(store.strategy.resource, prefix, kv.key, store.codec.decodeTransient(kv));
}

function apply(graph: OwnerGraph, store: GenericStore, prefix: string, event: WatchEvent): string[] {
  if (event.type === 'DELETED') return graph.removeAt(event.key);
  const node = nodeAt(store, prefix, event.kv);
  return node === undefined ? graph.removeAt(event.key) : graph.upsert(node);
}
