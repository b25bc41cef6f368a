import { isStoreError, StoreError } from './errors.js';
import type { KeyValue, Store, WriteOptions } from './types.js';

/**
 * A pure update: from the key's current value (undefined when it does not exist) to the new
 * value. Return the current value unchanged to write nothing. Throw to abort.
 */
export type UpdateFunction = (current: KeyValue | undefined) => string | Promise<string>;

export interface GuaranteedUpdateOptions extends WriteOptions {
  /** Create the key when it does not exist (else `KeyNotFound`). Default false. */
  readonly allowCreate?: boolean;
  /** Give up with the last `Conflict` after this many attempts. Default 100. */
  readonly maxAttempts?: number;
}

/**
 * Read-modify-write with optimistic concurrency, like kube-apiserver's GuaranteedUpdate:
 * reads the key, applies `update`, writes with compare-and-swap on the revision read, and on
 * `Conflict` (or a lost create race) starts again from a fresh read. Resolves to the value
 * written, or to the current one when `update` changed nothing.
 */
export async function guaranteedUpdate(
  store: Store,
  key: string,
  update: UpdateFunction,
  options: GuaranteedUpdateOptions = {},
): Promise<KeyValue> {
  const maxAttempts = options.maxAttempts ?? 100;
  const writeOptions: WriteOptions = options.lease === undefined ? {} : { lease: options.lease };
  let lastConflict: StoreError | undefined;
  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const current = await store.get(key);
    if (current === undefined && options.allowCreate !== true) throw StoreError.keyNotFound(key);
    const next = await update(current);
    if (current !== undefined && next === current.value && current.lease === options.lease) return current;
    try {
      return current === undefined
        ? await store.create(key, next, writeOptions)
        : await store.update(key, next, current.modRevision, writeOptions);
    } catch (error) {
      if (isStoreError(error, 'Conflict') || isStoreError(error, 'KeyExists') || isStoreError(error, 'KeyNotFound')) {
        if (isStoreError(error, 'KeyNotFound') && options.allowCreate !== true) throw error;
        lastConflict = error;
        continue;
      }
      throw error;
    }
  }
  throw lastConflict ?? StoreError.unavailable(`guaranteed update of "${key}" made no attempt`);
}
