import type { Revision } from './types.js';

/** The closed set of failures of the store port. The API layers map each to their own error. */
export type StoreErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'Conflict'
  | 'Compacted'
  | 'LeaseNotFound'
  | 'InvalidArgument'
  | 'Unavailable';

export interface StoreErrorDetails {
  readonly key?: string;
  /** Conflict: the key's actual modRevision. */
  readonly actualRevision?: Revision;
  /** Compacted: the revision history now starts at. */
  readonly compactedRevision?: Revision;
  /** Unavailable: the backend's own error, for logs only. */
  readonly cause?: unknown;
  /**
   * Unavailable for lack of space (a full disk, etcd's quota): the backend's words for it, e.g.
   * `SQLITE_FULL: database or disk is full`, `ENOSPC: no space left on device`,
   * `etcdserver: mvcc: database space exceeded`. The APIs answer it as insufficient storage.
   */
  readonly outOfSpace?: string;
}

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly details: StoreErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }

  static keyNotFound(key: string): StoreError {
    return new StoreError('KeyNotFound', `key "${key}" not found`, { key });
  }
  static keyExists(key: string): StoreError {
    return new StoreError('KeyExists', `key "${key}" already exists`, { key });
  }
  static conflict(key: string, expected: Revision, actual: Revision): StoreError {
    return new StoreError(
      'Conflict',
      `key "${key}" was modified: expected modRevision ${expected}, found ${actual}`,
      { key, actualRevision: actual },
    );
  }
  static compacted(requested: Revision, compactedRevision: Revision): StoreError {
    return new StoreError(
      'Compacted',
      `revision ${requested} has been compacted; history starts at ${compactedRevision}`,
      { compactedRevision },
    );
  }
  static leaseNotFound(lease: string): StoreError {
    return new StoreError('LeaseNotFound', `lease ${lease} not found or expired`);
  }
  static invalid(message: string): StoreError {
    return new StoreError('InvalidArgument', message);
  }
  static unavailable(message: string, cause?: unknown): StoreError {
    return new StoreError('Unavailable', message, { cause });
  }
  /** A write refused for lack of space; `outOfSpace` is the backend's words for it. */
  static outOfSpace(message: string, outOfSpace: string, cause?: unknown): StoreError {
    return new StoreError('Unavailable', message, { cause, outOfSpace });
  }
}

/** The space a backend ran out of, in its own words, when `error` says so (SQLite, the file system, etcd's quota); else undefined. */
export function outOfSpaceCause(error: unknown): string | undefined {
  if (error instanceof StoreError) return error.details.outOfSpace;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return `${String(code)}: ${message}`;
  if (/database or disk is full|no space left on device|database space exceeded/i.test(message)) return message;
  return undefined;
}

export function isStoreError(error: unknown, code?: StoreErrorCode): error is StoreError {
  return error instanceof StoreError && (code === undefined || error.code === code);
}

/**
 * Passes store errors through; wraps anything else (a backend exception) as `Unavailable`,
 * carrying the cause when it is a lack of space (`outOfSpaceCause`).
 */
export function toStoreError(error: unknown, what: string): StoreError {
  if (error instanceof StoreError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  const space = outOfSpaceCause(error);
  return space === undefined ? StoreError.unavailable(`${what}: ${reason}`, error) : StoreError.outOfSpace(`${what}: the storage is full (${space})`, space, error);
}
