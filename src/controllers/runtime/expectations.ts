/**
 * client-go's ControllerExpectations (with UID-tracked deletions): before a controller asks
 * for creations or deletions for an owner it records them here, and it does not act on that
 * owner again until its informer has seen them all, so a stale cache never makes it create or
 * delete twice. Keys are the work queue's owner keys (`formatObjectKey`).
 *
 * Contract: counts never go below zero (a creation seen that nobody expected does not count
 * toward a later expectation); every expectation restarts the owner's time to live, and what
 * is pending lapses `ttlMs` after that (5 minutes, kube's ExpectationsTimeout) in case an
 * event was lost; an owner found satisfied starts over from nothing.
 */
export class Expectations {
  private readonly entries = new Map<string, { adds: number; readonly deletes: Set<string>; at: number }>();

  constructor(
    /** Milliseconds on any clock (default the monotonic `performance.now`). */
    private readonly now: () => number = () => performance.now(),
    private readonly ttlMs = 5 * 60_000,
  ) {}

  /** The owner `key` will see `count` more pods (or other dependents) created. */
  expectCreations(key: string, count: number): void {
    if (count <= 0) return;
    const entry = this.entry(key);
    entry.adds += count;
    entry.at = this.now();
  }

  /** The owner `key` will see the dependents with these uids deleted (or marked for deletion). */
  expectDeletions(key: string, uids: readonly string[]): void {
    if (uids.length === 0) return;
    const entry = this.entry(key);
    for (const uid of uids) entry.deletes.add(uid);
    entry.at = this.now();
  }

  /** A creation was seen (or a create failed, so it never will be). */
  creationObserved(key: string): void {
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.adds > 0) entry.adds--;
  }

  /** A deletion of `uid` was seen (or the delete failed). */
  deletionObserved(key: string, uid: string): void {
    this.entries.get(key)?.deletes.delete(uid);
  }

  /** Whether the owner may act: nothing pending, or what is pending has lapsed. */
  satisfied(key: string): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return true;
    if ((entry.adds <= 0 && entry.deletes.size === 0) || this.now() - entry.at > this.ttlMs) {
      this.entries.delete(key);
      return true;
    }
    return false;
  }

  /** Drops what is pending for `key` (its owner is gone). */
  forget(key: string): void {
    this.entries.delete(key);
  }

  private entry(key: string): { adds: number; readonly deletes: Set<string>; at: number } {
    let entry = this.entries.get(key);
    if (entry === undefined) this.entries.set(key, (entry = { adds: 0, deletes: new Set(), at: this.now() }));
    return entry;
  }
}
