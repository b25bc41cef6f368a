import assert from 'node:assert/strict';
import { isStoreError, type StoreErrorCode } from '../errors.js';
import type { KeyValue } from '../types.js';

export async function rejectsWith(promise: Promise<unknown>, code: StoreErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isStoreError(error), `expected a StoreError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

export function throwsWith(fn: () => unknown, code: StoreErrorCode): void {
  try {
    const result = fn();
    if (result instanceof Promise) throw new Error('use rejectsWith for promises');
  } catch (error) {
    assert.ok(isStoreError(error, code), `expected ${code}, got ${String(error)}`);
    return;
  }
  assert.fail(`expected ${code}`);
}

let counter = 0;
export function uniquePrefix(): string {
  return `/conformance/${process.pid}-${Date.now().toString(36)}-${counter++}/`;
}

/** Values seen through get/list/watch carry the same key, value and revisions. */
export function same(kv: KeyValue | undefined): Pick<KeyValue, 'key' | 'value' | 'createRevision' | 'modRevision'> | undefined {
  return kv === undefined ? undefined : { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}
