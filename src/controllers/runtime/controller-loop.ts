import type { Logger } from '../../observability/logger.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { formatObjectKey, parseQueueKey, type ObjectKey } from './object-key.js';
import type { Informer } from './object-informer.js';
import { startWorkLoop, type ReconcileResult } from './work-loop.js';
import type { WorkQueueOptions } from './work-queue.js';


/** Where a loop reports its reconciles and queue depth (the controller manager's metrics). */
interface LoopMetrics {
  reconciled(controller: string, result: 'success' | 'error'): void;
  /** Reports `depth` under `controller` until the returned function is called. */
  watchQueue(controller: string, depth: () => number): () => void;
}

/**
 * Reconciles the object `key` (by cluster and name); `queueKey` is the key as the queue spells
 * it (`formatObjectKey(key)`), for per-object maps and expectations.
 */
export type ObjectReconcile = (key: ObjectKey, queueKey: string) => Promise<ReconcileResult | void>;

export interface ControllerLoopOptions {
  /** For logs and metrics: `deployment`, `statefulset-controller`. */
  readonly name: string;
  readonly reconcile: ObjectReconcile;
  readonly logger: Logger;
  /** Keys reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
  /** Reconcile outcomes and queue depth are reported here under `name`, when given. */
  readonly metrics?: LoopMetrics;
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
 * The loop every object controller runs: {@link startWorkLoop} over object keys (deduplicated,
 * rate-limited, one worker per key, backoff on failure, `requeueAfterMs` on success), with
 * its logs under `controller: name`.
 */
export function startControllerLoop(options: ControllerLoopOptions): ControllerLoop {
  const { name, metrics } = options;
  const loop = startWorkLoop<string>({
    workers: options.workers ?? 2,
    logger: options.logger.child({ controller: name }),
    ...(options.queue === undefined ? {} : { queue: options.queue }),
    ...(metrics === undefined ? {} : { onResult: (result: 'success' | 'error') => metrics.reconciled(name, result) }),
    reconcile: async (text) => {
      const key = parseQueueKey(text);
      return key === undefined ? undefined : options.reconcile(key, text);
    },
  });
  const unwatch = metrics?.watchQueue(name, () => loop.length);
  return {
    enqueue: (key) => loop.add(formatObjectKey(key)),
    enqueueAfter: (key, ms) => loop.addAfter(formatObjectKey(key), ms),
    enqueueAll: (informer, cluster) => {
      if (cluster === undefined) {
        for (const key of informer.keys()) loop.add(formatObjectKey(key));
        return;
      }
      for (const object of informer.list(cluster)) {
        if (object.metadata.name !== undefined) loop.add(formatObjectKey({ cluster, name: object.metadata.name }));
      }
    },
    stop: async () => {
      await loop.stop();
      unwatch?.();
    },
  };
}
