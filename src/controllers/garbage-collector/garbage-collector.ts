import { setMaxListeners } from 'node:events';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Logger } from '../../observability/logger.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { startWorkLoop, type WorkLoop } from '../runtime/work-loop.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import { ClusterObjects } from './cluster-objects.js';
import { feedGraph } from './graph-feed.js';
import { OwnerGraph } from './owner-graph.js';
import { garbageCollectorReconciler, type CollectorAction } from './reconciler.js';

export interface GarbageCollectorOptions {
  /** Started: its watch caches have listed. */
  readonly storage: VirtualClusterStorage;
  readonly logger: Logger;
  /** Where the collector's metrics are registered, if anywhere. */
  readonly metrics?: Registry;
  /** Objects reconciled at once (default 4; kube-controller-manager runs 20 goroutines). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
  /** While an owner waits for its dependents' deletion, look again after this long (default 10 s). */
  readonly foregroundRecheckMs?: number;
}

export interface GarbageCollector {
  /** The graph as the collector sees it (tests, debugging). */
  readonly graph: OwnerGraph;
  /** Stops watching and waits for the reconciles in flight. */
  stop(): Promise<void>;
}

/**
 * kube-controller-manager's garbage collector for the virtual clusters: a graph of owners
 * and dependents built from every resource's watch cache decides what to look at; a work
 * queue of objects (deduplicated, one worker per object, exponential backoff on failure)
 * reconciles each from live reads and writes through the GenericStores, so DELETE's
 * propagation policies (Background, Foreground, Orphan) complete.
 */
export function startGarbageCollector(options: GarbageCollectorOptions): GarbageCollector {
  const { logger } = options;
  const graph = new OwnerGraph();
  const metrics = options.metrics === undefined ? undefined : registerMetrics(options.metrics, graph, () => loop.length);
  const controller = new AbortController();
  // One signal ends the watch of every resource's cache: more listeners than Node's default warning level.
  setMaxListeners(64, controller.signal);
  const loop: WorkLoop<string> = startWorkLoop<string>({
    workers: options.workers ?? 4,
    reconcile: garbageCollectorReconciler({
      graph,
      objects: new ClusterObjects(options.storage),
      enqueue: (item) => loop.add(item),
      logger,
      ...(metrics === undefined ? {} : { onAction: (action: CollectorAction) => metrics.actions.inc({ action }) }),
      ...(options.foregroundRecheckMs === undefined ? {} : { foregroundRecheckMs: options.foregroundRecheckMs }),
    }),
    logger,
    ...(options.queue === undefined ? {} : { queue: options.queue }),
    ...(metrics === undefined ? {} : { onResult: (result: 'success' | 'error') => metrics.reconciles.inc({ result }) }),
  });
  const feeding = feedGraph({
    stores: options.storage.all,
    graph,
    enqueue: (items) => {
      for (const item of items) loop.add(item);
    },
    logger,
    signal: controller.signal,
  }).catch((error: unknown) => logger.error({ err: error }, 'garbage collector graph feed failed'));
  logger.info({ objects: graph.size }, 'garbage collector started');
  return {
    graph,
    stop: async () => {
      controller.abort();
      await Promise.all([feeding, loop.stop()]);
    },
  };
}

function registerMetrics(registry: Registry, graph: OwnerGraph, queueDepth: () => number): { actions: Counter<'action'>; reconciles: Counter<'result'> } {
  new Gauge({
    name: 'edgeplane_vk8s_garbage_collector_graph_objects',
    help: 'Objects in the garbage collector\'s owner graph.',
    registers: [registry],
    collect() {
      this.set(graph.size);
    },
  });
  new Gauge({
    name: 'edgeplane_vk8s_garbage_collector_queue_depth',
    help: 'Objects waiting for a garbage collector worker.',
    registers: [registry],
    collect() {
      this.set(queueDepth());
    },
  });
  return {
    actions: new Counter({ name: 'edgeplane_vk8s_garbage_collector_actions_total', help: 'Writes the garbage collector made, by action.', labelNames: ['action'], registers: [registry] }),
    reconciles: new Counter({ name: 'edgeplane_vk8s_garbage_collector_reconciles_total', help: 'Garbage collector reconciles, by result (success or error).', labelNames: ['result'], registers: [registry] }),
  };
}
