/**
 * The store port: a revisioned key-value store in the terms of etcd and Kubernetes'
 * `storage.Interface`. Every backend (sqlite, etcd, memory) implements {@link Store} and
 * passes the same conformance suite (`testing/conformance.ts`).
 *
 * Contract, shared by every backend:
 * - Every successful write (create, update, delete, lease expiry deleting a key) is given one
 *   store-wide revision, strictly greater than every earlier one. `currentRevision()` is the
 *   revision of the newest write (0 for a new store on sqlite and memory; etcd starts at 1).
 * - A write is acknowledged (its promise resolves) only after it is durable.
 * - Keys are printable ASCII (0x21–0x7E), start with "/", and are at most
 *   {@link MAX_KEY_BYTES} long; values are text (JSON in practice) of at most
 *   {@link MAX_VALUE_BYTES} bytes. Anything else is rejected with `InvalidArgument`.
 * - Compaction at revision C discards history before C: `list` at a revision below C and
 *   `watch` from a revision below C fail with `Compacted`.
 * - Failures are always {@link StoreError}s; backend exceptions never leak out.
 */

/** A store-wide revision: the position of a write in the store's history. */
export type Revision = number;

/** An opaque lease identifier (etcd's int64 lease id as a decimal string). */
export type LeaseId = string;

export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** Revision of the write that created this key (reset when a deleted key is created again). */
  readonly createRevision: Revision;
  /** Revision of the latest write to this key; the value to pass as `expectedModRevision`. */
  readonly modRevision: Revision;
  /** The lease the key is attached to, if any. */
  readonly lease?: LeaseId;
}

export interface ListOptions {
  /** At most this many items; the result then carries a `continue` token when more exist. */
  readonly limit?: number;
  /** A token from an earlier page: lists the next page at the same snapshot revision. */
  readonly continue?: string;
  /** Read at this past revision instead of the current one (not together with `continue`). */
  readonly revision?: Revision;
}

export interface ListResult {
  /** Items in key order. */
  readonly items: readonly KeyValue[];
  /** The snapshot revision the whole list (every page of it) was read at. */
  readonly revision: Revision;
  /** Present when more items exist: pass it as `continue` to read the next page. */
  readonly continue?: string;
}

export interface WriteOptions {
  /** Attach the key to this lease; a write without it detaches the key from any lease. */
  readonly lease?: LeaseId;
}

export interface DeleteResult {
  /** The revision of the deletion. */
  readonly revision: Revision;
  /** The value the key had just before it was deleted. */
  readonly prev: KeyValue;
}

/**
 * One change to one key. Events reach a watcher in revision order, each exactly once.
 * `ADDED` when a key is created (also re-created after a delete), `MODIFIED` when it is
 * updated, `DELETED` when it is deleted or its lease expired.
 */
export type WatchEvent =
  | { readonly type: 'ADDED'; readonly key: string; readonly revision: Revision; readonly kv: KeyValue }
  | {
      readonly type: 'MODIFIED';
      readonly key: string;
      readonly revision: Revision;
      readonly kv: KeyValue;
      readonly prev: KeyValue;
    }
  | { readonly type: 'DELETED'; readonly key: string; readonly revision: Revision; readonly prev: KeyValue };

export interface WatchOptions {
  /**
   * Deliver the events after this revision (exclusive, like a Kubernetes resourceVersion).
   * When unset, the watch starts at the revision current when the watch is established, which
   * on etcd happens after `watch()` returns: a caller that must see a write it makes next
   * passes the revision it read (`currentRevision()`, a list's revision) instead.
   */
  readonly fromRevision?: Revision;
  /** Ends the iteration (it completes normally) when aborted. */
  readonly signal?: AbortSignal;
  /**
   * Progress notification (etcd's progress_notify, kube's watch bookmarks from the store):
   * called with a revision R once every event of the prefix up to R has been taken by the
   * consumer (it has asked for the event after them), so a mirror fed by this watch reflects
   * the store at R. Only stores with {@link Store.requestProgress} call it.
   */
  readonly onProgress?: (revision: Revision) => void;
}

export interface Store {
  /** The key's current value, or `undefined` when it does not exist. */
  get(key: string): Promise<KeyValue | undefined>;
  /** The keys under `prefix` in key order, read at one consistent snapshot revision. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Creates the key; `KeyExists` when it exists already. */
  create(key: string, value: string, options?: WriteOptions): Promise<KeyValue>;
  /**
   * Compare-and-swap: writes only when the key's `modRevision` equals `expectedModRevision`
   * (`Conflict` otherwise, `KeyNotFound` when the key does not exist).
   */
  update(key: string, value: string, expectedModRevision: Revision, options?: WriteOptions): Promise<KeyValue>;
  /** Deletes the key, if given only at `expectedModRevision` (`Conflict` otherwise). */
  delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult>;
  /** Changes under `prefix` after `fromRevision`, in revision order, until aborted or closed. */
  watch(prefix: string, options?: WatchOptions): AsyncIterable<WatchEvent>;
  /** The revision of the newest write. */
  currentRevision(): Promise<Revision>;
  /**
   * Optional (etcd's RequestWatchProgress): makes watches opened with `onProgress` report
   * the store's current revision soon, including writes other processes made. A store that
   * has it reports progress on its own after each of its writes too; a store without it
   * never calls `onProgress`.
   */
  requestProgress?(): void;
  /** The revision below which history has been discarded (0 when never compacted). */
  compactedRevision(): Promise<Revision>;
  /** Discards history before `revision` (which must not be in the future). */
  compact(revision: Revision): Promise<void>;
  /** Grants a lease that expires `ttlSeconds` after its grant or latest keep-alive. */
  grantLease(ttlSeconds: number): Promise<LeaseId>;
  /** Renews the lease; `LeaseNotFound` when it expired or was revoked. Resolves to its TTL. */
  keepAliveLease(lease: LeaseId): Promise<number>;
  /** Revokes the lease at once, deleting the keys attached to it. */
  revokeLease(lease: LeaseId): Promise<void>;
  /** Releases the backend; pending writes finish first, watches end. */
  close(): Promise<void>;
}
