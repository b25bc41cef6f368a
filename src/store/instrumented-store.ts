import type { Metrics } from '../observability/metrics.js';
import { isStoreError } from './errors.js';
import type { Store, WatchEvent, WatchOptions } from './types.js';

type Operation = Exclude<keyof Store, 'watch' | 'close'>;

/**
 * A {@link Store} decorator that counts and times every operation of the store it wraps
 * (`edgeplane_store_*` metrics), labelled by backend and by result (ok or the error code).
 */
export function instrumentStore(store: Store, backend: string, metrics: Metrics): Store {
  function timed<K extends Operation>(operation: K): Store[K] {
    const method = store[operation] as (...args: unknown[]) => Promise<unknown>;
    // The label sets every call records, found once.
    const duration = metrics.storeDuration.cell({ backend, operation });
    const ok = metrics.storeOperations.cell({ backend, operation, result: 'ok' });
    return (async (...args: unknown[]) => {
      const started = performance.now();
      try {
        const result = await method.apply(store, args);
        ok.inc();
        return result;
      } catch (error) {
        metrics.storeOperations.inc({ backend, operation, result: isStoreError(error) ? error.code : 'unknown' });
        throw error;
      } finally {
        duration.observe((performance.now() - started) / 1000);
      }
    }) as Store[K];
  }

  return {
    get: timed('get'),
    list: timed('list'),
    create: timed('create'),
    update: timed('update'),
    delete: timed('delete'),
    currentRevision: timed('currentRevision'),
    compactedRevision: timed('compactedRevision'),
    compact: timed('compact'),
    grantLease: timed('grantLease'),
    keepAliveLease: timed('keepAliveLease'),
    revokeLease: timed('revokeLease'),
    watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchEvent> {
      const inner = store.watch(prefix, options);
      return {
        async *[Symbol.asyncIterator]() {
          metrics.storeWatches.inc({ backend });
          try {
            yield* inner;
          } finally {
            metrics.storeWatches.dec({ backend });
          }
        },
      };
    },
    close: () => store.close(),
    ...(store.requestProgress === undefined ? {} : { requestProgress: () => store.requestProgress?.() }),
  };
}
