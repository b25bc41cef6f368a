import { StoreError } from '../errors.js';

/**
 * Maps an exception of the etcd client (grpc status errors, etcd's own error strings) to the
 * store's closed set of errors. The one place where etcd failures are translated.
 */
export function fromEtcdError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes('required revision has been compacted')) {
    return new StoreError('Compacted', `${what}: ${message}`, { cause: error });
  }
  if (message.includes('required revision is a future revision')) {
    return StoreError.invalid(`${what}: the revision is in the future`);
  }
  if (message.includes('requested lease not found') || message.includes('lease not found')) {
    return new StoreError('LeaseNotFound', `${what}: lease not found or expired`, { cause: error });
  }
  if (message.includes('request is too large') || message.includes('too many operations')) {
    return StoreError.invalid(`${what}: ${message}`);
  }
  // etcd's space quota (--quota-backend-bytes) is met: it refuses writes until compacted, defragmented and disarmed.
  if (message.includes('mvcc: database space exceeded')) return StoreError.outOfSpace(`${what}: etcd: the storage is full (${message})`, message, error);
  return StoreError.unavailable(`${what}: etcd: ${message}`, error);
}
