import type { Revision } from '../types.js';

/**
 * One row of the append-only revision log (kine's design): every write appends a row whose
 * id is its revision. A delete appends a tombstone. The newest row of a key is its state.
 */
export interface LogRow {
  readonly revision: Revision;
  readonly key: string;
  /** The value written; "" for a tombstone. */
  readonly value: string;
  readonly deleted: boolean;
  /** Revision of the row that created the key (this row's own revision for a create). */
  readonly createRevision: Revision;
  /** Revision of the key's previous row; 0 when there is none. */
  readonly prevRevision: Revision;
  /** Lease id, or "" for none. */
  readonly lease: string;
}

export type NewLogRow = Omit<LogRow, 'revision' | 'createRevision'> & {
  /** Revision of the creating row; undefined when this row creates the key. */
  readonly createRevision: Revision | undefined;
};

/** A log row with the key's previous row, as a watch needs it. */
export interface LogChange {
  readonly row: LogRow;
  readonly prev: LogRow | undefined;
}

export interface LeaseRow {
  readonly id: string;
  readonly ttlSeconds: number;
  readonly expiresAtMs: number;
}

/**
 * The synchronous storage under a {@link LogStore}. Implementations: SQLite (durable, may be
 * shared by several processes) and memory. Every method is synchronous so that a whole batch
 * of writes, with their checks, runs atomically inside {@link transaction}.
 */
export interface LogBackend {
  /** Runs `fn` in one read transaction: every read inside sees the same committed state. */
  snapshot<T>(fn: () => T): T;
  /** Runs `fn` in one write transaction: all of its appends commit durably together, or none. */
  transaction<T>(fn: () => T): T;
  /** The key's newest row (a tombstone too), or undefined when it never existed or was compacted away. */
  latest(key: string): LogRow | undefined;
  /** Appends a row; returns it with its revision. */
  append(row: NewLogRow): LogRow;
  /**
   * Live keys in [start, end) at `revision` in key order, after `afterKey` when given,
   * at most `limit` of them.
   */
  rangeAt(start: string, end: string, revision: Revision, afterKey: string | undefined, limit: number): LogRow[];
  /** Rows with revision in (after, upTo] and key in [start, end), in revision order, at most `limit`. */
  changes(start: string, end: string, after: Revision, upTo: Revision, limit: number): LogChange[];
  /** Revision of the newest write ever made (compaction does not lower it). */
  currentRevision(): Revision;
  compactedRevision(): Revision;
  /** Drops rows superseded at or before `revision`, and tombstones at or before it. */
  compact(revision: Revision): void;

  insertLease(ttlSeconds: number, expiresAtMs: number): LeaseRow;
  getLease(id: string): LeaseRow | undefined;
  setLeaseExpiry(id: string, expiresAtMs: number): void;
  /** Sets every lease's expiry to `nowMs` plus its own TTL (etcd's lessor Promote). */
  renewAllLeases(nowMs: number): void;
  deleteLease(id: string): void;
  expiredLeases(nowMs: number): string[];
  /** Live keys currently attached to the lease. */
  keysWithLease(id: string): LogRow[];

  close(): void;
}
