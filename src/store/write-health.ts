import type { Logger } from '../observability/logger.js';
import { isStoreError } from './errors.js';
import type { Store } from './types.js';

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

  const watch = async <T>(write: () => Promise<T>): Promise<T> => {
    try {
      const result = await write();
      succeeded();
      return result;
    } catch (error) {
      failed(error);
      throw error;
    }
  };
  const watched: Store = {
    get: (key) => store.get(key),
    list: (prefix, listOptions) => store.list(prefix, listOptions),
    watch: (prefix, watchOptions) => store.watch(prefix, watchOptions),
    currentRevision: () => store.currentRevision(),
    compactedRevision: () => store.compactedRevision(),
    create: (key, value, writeOptions) => watch(() => store.create(key, value, writeOptions)),
    update: (key, value, revision, writeOptions) => watch(() => store.update(key, value, revision, writeOptions)),
    delete: (key, revision) => watch(() => store.delete(key, revision)),
    compact: (revision) => watch(() => store.compact(revision)),
    grantLease: (ttl) => watch(() => store.grantLease(ttl)),
    keepAliveLease: (lease) => watch(() => store.keepAliveLease(lease)),
    revokeLease: (lease) => watch(() => store.revokeLease(lease)),
    close: () => store.close(),
    ...(store.requestProgress === undefined ? {} : { requestProgress: () => store.requestProgress?.() }),
  };

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
