import { StoreError } from './errors.js';
import type { Revision } from './types.js';

const MAX_KEY_BYTES = 1024;
/** Like etcd's default request limit: 1.5 MiB per value. */
export const MAX_VALUE_BYTES = 1536 * 1024;

const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/** Throws `InvalidArgument` unless `key` is a valid store key (see the contract in types.ts). */
export function checkKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw StoreError.invalid('key must be a non-empty string');
  checkPrefix(key, 'key');
  if (key.endsWith('/')) throw StoreError.invalid(`key "${key}" must not end with "/"`);
}

/** Throws `InvalidArgument` unless `prefix` can start keys: "/" followed by key characters. */
export function checkPrefix(prefix: string, what = 'prefix'): void {
  if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
    throw StoreError.invalid(`${what} ${JSON.stringify(prefix)} must start with "/"`);
  }
  if (prefix.length > MAX_KEY_BYTES) {
    throw StoreError.invalid(`${what} is ${prefix.length} bytes long; the limit is ${MAX_KEY_BYTES}`);
  }
  if (!PRINTABLE_ASCII.test(prefix)) {
    throw StoreError.invalid(`${what} ${JSON.stringify(prefix)} may contain only printable ASCII without spaces`);
  }
}

export function checkValue(key: string, value: string): void {
  if (typeof value !== 'string') throw StoreError.invalid(`value of "${key}" must be a string`);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > MAX_VALUE_BYTES) {
    throw StoreError.invalid(`value of "${key}" is ${bytes} bytes; the limit is ${MAX_VALUE_BYTES}`);
  }
}

export function checkRevision(revision: Revision, what: string): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw StoreError.invalid(`${what} must be a non-negative integer, got ${String(revision)}`);
  }
}

export function checkLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw StoreError.invalid(`limit must be a positive integer, got ${String(limit)}`);
  }
}

export function checkTtl(ttlSeconds: number): void {
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 1) {
    throw StoreError.invalid(`lease TTL must be a whole number of seconds ≥ 1, got ${String(ttlSeconds)}`);
  }
}

/** The first key after every key that starts with `prefix` (keys are ASCII below 0x7F). */
export function prefixEnd(prefix: string): string {
  return prefix + '\x7f';
}
