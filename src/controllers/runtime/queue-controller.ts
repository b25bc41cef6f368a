import type { ControllerContext, RunningController } from '../manager/controller-context.js';
import { runWorkers, type ReconcileResult } from '../run-workers.js';
import { WorkQueue } from '../work-queue.js';
import { formatObjectKey, parseQueueKey, type ObjectKey } from './object-key.js';

export interface QueueController extends RunningController {
  /** Queues an object (by cluster and name) for a reconcile. */
  enqueue(key: ObjectKey): void;
  enqueueAfter(key: ObjectKey, ms: number): void;
}

/**
 * The loop every controller shares: a work queue of object keys (deduplicated, one worker
 * per key, exponential backoff on failure) drained by `workers` workers calling `reconcile`.
 */
export function startQueueController(
  name: string,
  context: ControllerContext,
  reconcile: (key: ObjectKey, queueKey: string) => Promise<ReconcileResult | void>,
  defaultWorkers: number,
): QueueController {
  const queue = new WorkQueue<string>();
  const unwatch = context.metrics.watchQueue(name, () => queue.length);
  const logger = context.logger.child({ controller: name });
  const working = runWorkers(queue, {
    workers: context.workers ?? defaultWorkers,
    logger,
    reconcile: async (text) => {
      const key = parseQueueKey(text);
      return key === undefined ? undefined : reconcile(key, text);
    },
    onResult: (result) => context.metrics.reconciled(name, result),
  });
  return {
    enqueue: (key) => queue.add(formatObjectKey(key)),
    enqueueAfter: (key, ms) => queue.addAfter(formatObjectKey(key), ms),
    stop: async () => {
      queue.shutDown();
      await working;
      unwatch();
    },
  };
}
