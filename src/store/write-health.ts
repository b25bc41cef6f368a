import type { Logger } from '../observability/logger.js';
import { isStoreError } from './errors.js';
import type { Store } from './types.js';

type WriteOperation = 'create' | 'update' | 'delete' | 'grantLease' | 'keepAliveLease' | 'revokeLease' | 'compact';
const WRITES: readonly WriteOperation[] = ['create', 'update', 'delete', 'grantLease', 'keepAliveLease', 'revokeLease', 'compact'];

/** Why writes fail now: the store's message, and the lack of space it names when that is the cause. */
interface Failing {
  readonly message: string;
  readonly outOfSpace: string | undefined;
}

export interface StoreWriteHealth {
  /** The store, its writes watched. */
  readonly store: Store;
  /**
   * The readiness check `store-writable`: passes while writes succeed; once one failed for the
   * storage (a full disk above all), fails until a write succeeds again, trying a small one
   * itself (a lease granted and revoked) each time it is asked.
   */
  readonly check: { readonly name: string; run(): Promise<void> };
}

/**
 * Watches the writes of `store`: the first one refused by the storage (Unavailable: a full
 * disk, etcd's space quota, a lost backend) is logged as an error naming `where` and the
 * cause, once per episode; the first success after that is logged too. Conflicts and the
 * like are answers, not failures of the storage.
 */
export function trackStoreWrites(store: Store, options: { readonly where: string; readonly logger: Logger }): StoreWriteHealth {
  const { logger, where } = options;
  let failing: Failing | undefined;
  let probing: Promise<void> | undefined;

  const failed = (error: unknown): void => {
    if (!isStoreError(error, 'Unavailable')) return;
    if (failing !== undefined) return;
    failing = { message: error.message, outOfSpace: error.details.outOfSpace };
    if (failing.outOfSpace !== undefined) logger.error({ store: where, cause: failing.outOfSpace }, `store writes fail: ${where} is out of space (${failing.outOfSpace})`);
    else logger.error({ store: where, cause: error.message }, `store writes fail: ${where}: ${error.message}`);
  };
  const succeeded = (): void => {
    if (failing === undefined) return;
    failing = undefined;
    logger.info({ store: where }, `store writes succeed again: ${where}`);
  };

  const watched = { ...store } as Store;
  for (const operation of WRITES) {
    const method = store[operation] as (...args: unknown[]) => Promise<unknown>;
    (watched as unknown as Record<WriteOperation, unknown>)[operation] = async (...args: unknown[]) => {
      try {
        const result = await method.apply(store, args);
        succeeded();
        return result;
      } catch (error) {
        failed(error);
        throw error;
      }
    };
  }
  // Spread copies own properties only: a class's methods (the log store's, etcd's) are bound here.
  for (const key of ['get', 'list', 'watch', 'currentRevision', 'compactedRevision', 'close', 'requestProgress'] as const) {
    const method = store[key] as ((...args: unknown[]) => unknown) | undefined;
    if (method !== undefined) (watched as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => method.apply(store, args);
  }

  const probe = async (): Promise<void> => {
    const lease = await watched.grantLease(60);
    await watched.revokeLease(lease).catch(() => undefined);
  };
  return {
    store: watched,
    check: {
      name: 'store-writable',
      run: async () => {
        if (failing === undefined) return;
        probing ??= probe().finally(() => (probing = undefined));
        await probing.catch(() => undefined);
        if (failing !== undefined) throw new Error(failing.outOfSpace === undefined ? failing.message : `${where} is out of space: ${failing.outOfSpace}`);
      },
    },
  };
}
