import { isStoreError } from '../store/errors.js';
import type { Store } from '../store/types.js';

/**
 * The value at `key`, made by `make` and created with compare-and-swap when absent. When
 * another server creates it first (KeyExists), the winner's value is read and returned, so
 * every server ends up using the same one.
 */
export async function readOrCreate(store: Store, key: string, make: () => Promise<string>): Promise<{ readonly value: string; readonly created: boolean }> {
  const existing = await store.get(key);
  if (existing !== undefined) return { value: existing.value, created: false };
  const value = await make();
  try {
    await store.create(key, value);
    return { value, created: true };
  } catch (error) {
    if (!isStoreError(error, 'KeyExists')) throw error;
    const winner = await store.get(key);
    if (winner === undefined) throw error;
    return { value: winner.value, created: false };
  }
}
