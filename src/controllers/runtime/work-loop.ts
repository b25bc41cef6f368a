import type { Logger } from '../../observability/logger.js';
import { WorkQueue, type WorkQueueOptions } from './work-queue.js';

/** A successful reconcile may ask to look again later (a safety net for waits on others). */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

export interface WorkLoopOptions<K> {
  /** Brings the world in line with `key`'s desired state; a rejection retries it with backoff. */
  readonly reconcile: (key: K) => Promise<ReconcileResult | void>;
  /** How many keys are reconciled at once (at least 1; each key by one worker at a time). */
  readonly workers: number;
  /** Where failed reconciles are reported. */
  readonly logger: Logger;
  /** The queue's backoff and timers (tests put them on fake time). */
  readonly queue?: WorkQueueOptions;
  /** Told about each outcome (metrics). */
  readonly onResult?: (result: 'success' | 'error') => void;
}

/** A running loop: what event handlers feed, and how it stops. */
export interface WorkLoop<K> {
  /** Queues `key` (deduplicated: see WorkQueue.add). */
  add(key: K): void;
  /** Queues `key` after `ms` (the earlier of two delays wins). */
  addAfter(key: K, ms: number): void;
  /** Keys waiting for a worker (not the delayed ones nor those being reconciled). */
  readonly length: number;
  /** How many times `key` failed in a row. */
  retries(key: K): number;
  /** Shuts the queue down (delayed keys are dropped) and resolves once every worker finished its current key. */
  stop(): Promise<void>;
}

/**
 * The one worker loop every controller runs (controller-runtime's): keys go into a
 * deduplicating, rate-limited {@link WorkQueue}; `workers` workers take one key at a time,
 * reconcile it, and then forget its backoff (adding it back after `requeueAfterMs` when the
 * reconcile asks) or, when the reconcile rejects, add it back after its backoff.
 */
export function startWorkLoop<K>(options: WorkLoopOptions<K>): WorkLoop<K> {
  const queue = new WorkQueue<K>(options.queue);
  const working = runWorkers(queue, options);
  return {
    add: (key) => queue.add(key),
    addAfter: (key, ms) => queue.addAfter(key, ms),
    get length() {
      return queue.length;
    },
    retries: (key) => queue.retries(key),
    stop: async () => {
      queue.shutDown();
      await working;
    },
  };
}

/** Runs the workers until the queue is shut down and each finished its current key. */
async function runWorkers<K>(queue: WorkQueue<K>, options: WorkLoopOptions<K>): Promise<void> {
  const worker = async (): Promise<void> => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = await options.reconcile(key);
        queue.forget(key);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
        options.onResult?.('success');
      } catch (error) {
        options.onResult?.('error');
        options.logger.warn({ key, retries: queue.retries(key), err: error instanceof Error ? error.message : String(error) }, 'reconcile failed; retrying with backoff');
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers) }, worker));
}
