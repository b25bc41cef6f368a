import type { Logger } from '../observability/logger.js';
import type { WorkQueue } from './work-queue.js';

/** A successful reconcile may ask to look again later (a safety net for waits on others). */
export interface ReconcileResult {
  readonly requeueAfterMs?: number;
}

export interface WorkerOptions<K> {
  /** How many keys are reconciled at once (each key by one worker at a time). */
  readonly workers: number;
  /** Brings the world in line with `key`'s desired state; a rejection retries it with backoff. */
  readonly reconcile: (key: K) => Promise<ReconcileResult | void>;
  readonly logger: Logger;
  /** Told about each outcome (metrics). */
  readonly onResult?: (result: 'success' | 'error') => void;
}

/**
 * controller-runtime's worker loop: take a key, reconcile it, forget its backoff on success
 * (and add it back after `requeueAfterMs` if asked) or add it back rate-limited on failure,
 * mark it done. Resolves once the queue is shut
 * down and every worker finished its current key.
 */
export async function runWorkers<K>(queue: WorkQueue<K>, options: WorkerOptions<K>): Promise<void> {
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
