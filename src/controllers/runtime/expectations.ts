/**
 * kube-controller-manager's ControllerExpectations with UID-tracked deletions: before a
 * controller creates N pods (or deletes some) for an owner, it records what it expects to see;
 * until its informer has seen every creation and deletion (or the expectation is older than
 * the TTL: a lost event must not wedge the owner), the owner is not synced again, so a stale
 * cache never makes it create twice. Keys are the work queue's owner keys.
 */
export class Expectations {
  private readonly records = new Map<string, { adds: number; readonly deletes: Set<string>; readonly at: number }>();

  /** `now`: monotonic milliseconds; `ttlMs` default 5 minutes (kube's ExpectationsTimeout). */
  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly ttlMs = 5 * 60_000,
  ) {}

  /** Replaces the owner's expectations: `adds` creations and the deletion of `deleteUids`. */
  expect(key: string, adds: number, deleteUids: readonly string[] = []): void {
    this.records.set(key, { adds, deletes: new Set(deleteUids), at: this.now() });
  }

  /** Adds `adds` creations to what the owner expects (before each create, when they are made one by one). */
  raise(key: string, adds: number): void {
    const record = this.records.get(key);
    if (record === undefined || this.now() - record.at > this.ttlMs) this.expect(key, adds);
    else this.records.set(key, { adds: Math.max(0, record.adds) + adds, deletes: record.deletes, at: this.now() });
  }

  /** The informer saw a pod of the owner appear (or a create failed and will not appear). */
  creationObserved(key: string): void {
    const record = this.records.get(key);
    if (record !== undefined) record.adds--;
  }

  /** The informer saw the pod `uid` of the owner go or get marked for deletion (or its delete failed). */
  deletionObserved(key: string, uid: string): void {
    this.records.get(key)?.deletes.delete(uid);
  }

  /** Whether the owner may be synced: nothing expected, everything seen, or the expectation expired. */
  satisfied(key: string): boolean {
    const record = this.records.get(key);
    if (record === undefined) return true;
    if (record.adds <= 0 && record.deletes.size === 0) return true;
    return this.now() - record.at > this.ttlMs;
  }

  /** The owner is gone: drop its record. */
  forget(key: string): void {
    this.records.delete(key);
  }
}

/**
 * Expectations for updates: after writing an object, its cache must show that write (a
 * resourceVersion at least as new) before the writer trusts the cache about it again.
 * Store revisions are numeric and store-wide, so versions compare as numbers.
 */
export class WrittenVersions {
  private readonly written = new Map<string, { readonly version: number; readonly at: number }>();

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly ttlMs = 60_000,
  ) {}

  record(key: string, resourceVersion: string | undefined): void {
    const version = Number(resourceVersion);
    if (Number.isFinite(version)) this.written.set(key, { version, at: this.now() });
  }

  /** Whether the cache's copy (its resourceVersion, or undefined when it has none) includes our last write. */
  seen(key: string, cachedVersion: string | undefined): boolean {
    const entry = this.written.get(key);
    if (entry === undefined) return true;
    if (cachedVersion === undefined || Number(cachedVersion) >= entry.version || this.now() - entry.at > this.ttlMs) {
      this.written.delete(key);
      return true;
    }
    return false;
  }
}
