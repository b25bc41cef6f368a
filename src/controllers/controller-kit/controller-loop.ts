import type { Logger } from '../../observability/logger.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { runWorkers, type ReconcileResult } from '../run-workers.js';
import { formatObjectKey, parseQueueKey, type ObjectKey } from '../runtime/object-key.js';
import type { Informer } from '../runtime/object-informer.js';
import { WorkQueue, type WorkQueueOptions } from '../work-queue.js';

export interface ControllerLoopOptions {
  /** For logs: `statefulset-controller`. */
  readonly name: string;
  readonly reconcile: (key: ObjectKey) => Promise<ReconcileResult | void>;
  readonly logger: Logger;
  /** Keys reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

/** A running controller's queue: what its event handlers feed, and how it stops. */
export interface ControllerLoop {
  enqueue(key: ObjectKey): void;
  enqueueAfter(key: ObjectKey, ms: number): void;
  /** Every object of `informer` (of `cluster` only, when given). */
  enqueueAll(informer: Informer, cluster?: ClusterRef): void;
  /** Shuts the queue down and waits for the reconciles in flight. */
  stop(): Promise<void>;
}

/**
 * The loop every controller here runs (controller-runtime's): object keys go into a
 * deduplicating, rate-limited work queue; workers reconcile one key at a time each; a failed
 * reconcile is retried with backoff, a successful one may ask to be looked at again later.
 */
export function startControllerLoop(options: ControllerLoopOptions): ControllerLoop {
  const queue = new WorkQueue<string>(options.queue);
  const working = runWorkers(queue, {
    workers: options.workers ?? 2,
    logger: options.logger.child({ controller: options.name }),
    reconcile: async (text) => {
      const key = parseQueueKey(text);
      return key === undefined ? undefined : options.reconcile(key);
    },
  });
  return {
    enqueue: (key) => queue.add(formatObjectKey(key)),
    enqueueAfter: (key, ms) => queue.addAfter(formatObjectKey(key), ms),
    enqueueAll: (informer, cluster) => {
      if (cluster === undefined) {
        for (const key of informer.keys()) queue.add(formatObjectKey(key));
        return;
      }
      for (const object of informer.list(cluster)) {
        if (object.metadata.name !== undefined) queue.add(formatObjectKey({ cluster, name: object.metadata.name }));
      }
    },
    stop: async () => {
      queue.shutDown();
      await working;
    },
  };
}
