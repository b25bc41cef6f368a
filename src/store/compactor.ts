import type { Logger } from '../observability/logger.js';
import { isStoreError } from './errors.js';
import type { Revision, Store } from './types.js';

export interface CompactorOptions {
  /** How often to compact; each run discards history older than the previous run. Default 5 minutes. */
  readonly intervalMs?: number;
  readonly logger: Logger;
}

/**
 * Periodic compaction, as kube-apiserver does it: every interval, compact at the revision
 * that was current one interval ago, so clients always have at least one interval of
 * history to resume watches and paginated lists from. Returns a function that stops it.
 */
export function startCompactor(store: Store, options: CompactorOptions): () => void {
  let previous: Revision | undefined;
  let running = false;
  const tick = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      const current = await store.currentRevision();
      if (previous !== undefined && previous > 0) {
        await store.compact(previous);
        options.logger.debug({ revision: previous }, 'store compacted');
      }
      previous = current;
    } catch (error) {
      options.logger.warn({ err: isStoreError(error) ? error.message : String(error) }, 'store compaction failed; will retry');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), options.intervalMs ?? 5 * 60 * 1000);
  timer.unref();
  return () => clearInterval(timer);
}
