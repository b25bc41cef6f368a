import { checkListArguments, encodeContinue } from '../continue-token.js';
import { StoreError, toStoreError } from '../errors.js';
import { checkKey, checkPrefix, checkRevision, checkTtl, checkValue, prefixEnd } from '../keys.js';
import type {
  DeleteResult,
  KeyValue,
  LeaseId,
  ListOptions,
  ListResult,
  Revision,
  Store,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from '../types.js';
import type { LogBackend, LogRow } from './log-backend.js';
import { rowToKeyValue } from './log-rows.js';
import { WatchHub } from './watch-hub.js';

export interface LogStoreOptions {
  /** Used in error messages ("sqlite", "memory"). */
  readonly name: string;
  /** Where the log is (the SQLite file), named in the errors of failed writes. */
  readonly location?: string;
  /** Wall clock in milliseconds (lease expiry). Default `Date.now`. */
  readonly now?: () => number;
  /** How often to look for rows written by other processes sharing the log; 0 disables. Default 0. */
  readonly pollIntervalMs?: number;
  /** How often expired leases are swept. Default 250 ms. */
  readonly leaseSweepIntervalMs?: number;
  /** Most writes committed in one transaction (group commit). Default 1000. */
  readonly maxBatch?: number;
  /** Events a lagging watcher may queue before it reads the log itself. Default 1000. */
  readonly maxWatchQueue?: number;
}

interface PendingWrite {
  readonly run: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: StoreError) => void;
}

const LEASE_ID = /^[1-9][0-9]{0,18}$/;

/**
 * The {@link Store} over an append-only revision log (kine's design). Writes are queued and
 * committed in groups: every write queued in one turn of the event loop runs its own checks
 * and appends inside one durable transaction, and is acknowledged only after that commits
 * (group commit, as etcd batches its raft entries). Watches are fed by a {@link WatchHub}.
 */
export class LogStore implements Store {
  private readonly hub: WatchHub;
  private readonly now: () => number;
  private readonly maxBatch: number;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  private closed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  private drained: (() => void) | undefined;
  /** Callers of {@link currentRevision} waiting for the next shared read of it. */
  private revisionReaders: Array<{ readonly resolve: (revision: Revision) => void; readonly reject: (error: StoreError) => void }> | undefined;

  constructor(
    private readonly log: LogBackend,
    private readonly options: LogStoreOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.maxBatch = options.maxBatch ?? 1000;
    this.hub = new WatchHub(log, { batchSize: 500, maxQueue: options.maxWatchQueue ?? 1000 });
    const poll = options.pollIntervalMs ?? 0;
    if (poll > 0) this.every(poll, () => this.hub.poll());
    this.renewAllLeases();
    this.every(options.leaseSweepIntervalMs ?? 250, () => void this.sweepLeases().catch(() => undefined));
  }

  private every(ms: number, fn: () => void): void {
    const timer = setInterval(() => {
      if (this.closed) return;
      try {
        fn();
      } catch {
        // A failed background poll or sweep is retried on the next tick.
      }
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /**
   * Runs a read. Several statements run in one snapshot; a single statement is atomic on
   * its own and skips the transaction (it would double the cost of a get).
   */
  private read<T>(what: string, fn: () => T, statements: 'one' | 'several' = 'several'): Promise<T> {
    if (this.closed) return Promise.reject(StoreError.unavailable(`${this.options.name} store is closed`));
    try {
      return Promise.resolve(statements === 'one' ? fn() : this.log.snapshot(fn));
    } catch (error) {
      return Promise.reject(toStoreError(error, `${this.options.name} ${what}`));
    }
  }

  /** Queues a write for the next group commit. `run` executes inside the transaction. */
  private write<T>(run: () => T): Promise<T> {
    if (this.closed) return Promise.reject(StoreError.unavailable(`${this.options.name} store is closed`));
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.flushScheduled = false;
    const batch = this.pending.splice(0, this.maxBatch);
    if (this.pending.length > 0) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: StoreError }> = [];
    try {
      this.log.transaction(() => {
        outcomes.length = 0;
        for (const write of batch) {
          try {
            outcomes.push({ ok: true, value: write.run() });
          } catch (error) {
            // A failed check (Conflict, KeyExists, …) fails that write alone; it appended nothing.
            if (!(error instanceof StoreError)) throw error;
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      const failure = toStoreError(error, `${this.options.name} write failed${this.options.location === undefined ? '' : ` (${this.options.location})`}`);
      for (const write of batch) write.reject(failure);
      this.afterFlush();
      return;
    }
    batch.forEach((write, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok === true) write.resolve(outcome.value);
      else write.reject(outcome?.error ?? StoreError.unavailable('write lost its outcome'));
    });
    try {
      this.hub.poll();
    } catch {
      // The committed writes are acknowledged; watchers catch up on the next poll.
    }
    this.afterFlush();
  }

  private afterFlush(): void {
    if (this.pending.length === 0 && this.drained !== undefined) this.drained();
  }

  get(key: string): Promise<KeyValue | undefined> {
    // Not async: returning the read's own promise saves two microtask hops on the hottest path.
    return this.read(
      'get',
      () => {
        checkKey(key);
        const row = this.log.latest(key);
        return row === undefined || row.deleted ? undefined : rowToKeyValue(row);
      },
      'one',
    );
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const position = checkListArguments(prefix, options);
    return this.read('list', () => {
      const current = this.log.currentRevision();
      const revision = position?.revision ?? options.revision ?? current;
      if (revision > current) throw StoreError.invalid(`revision ${revision} is in the future (current ${current})`);
      const compacted = this.log.compactedRevision();
      if (revision < compacted) throw StoreError.compacted(revision, compacted);
      const limit = options.limit ?? Number.MAX_SAFE_INTEGER;
      const rows = this.log.rangeAt(prefix, prefixEnd(prefix), revision, position?.lastKey, Math.min(limit + 1, Number.MAX_SAFE_INTEGER));
      const items = rows.slice(0, limit).map(rowToKeyValue);
      const last = items[items.length - 1];
      return rows.length > limit && last !== undefined
        ? { items, revision, continue: encodeContinue({ revision, lastKey: last.key, prefix }) }
        : { items, revision };
    });
  }

  async create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    checkKey(key);
    checkValue(key, value);
    const lease = this.checkedLease(options.lease);
    return this.write(() => {
      const latest = this.log.latest(key);
      if (latest !== undefined && !latest.deleted) throw StoreError.keyExists(key);
      if (lease !== '') this.liveLease(lease);
      const row = this.log.append({
        key,
        value,
        deleted: false,
        createRevision: undefined,
        prevRevision: latest?.revision ?? 0,
        lease,
      });
      return rowToKeyValue(row);
    });
  }

  async update(key: string, value: string, expectedModRevision: Revision, options: WriteOptions = {}): Promise<KeyValue> {
    checkKey(key);
    checkValue(key, value);
    checkRevision(expectedModRevision, 'expectedModRevision');
    const lease = this.checkedLease(options.lease);
    return this.write(() => {
      const latest = this.liveRow(key);
      if (latest.revision !== expectedModRevision) throw StoreError.conflict(key, expectedModRevision, latest.revision);
      if (lease !== '') this.liveLease(lease);
      const row = this.log.append({
        key,
        value,
        deleted: false,
        createRevision: latest.createRevision,
        prevRevision: latest.revision,
        lease,
      });
      return rowToKeyValue(row);
    });
  }

  async delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult> {
    checkKey(key);
    if (expectedModRevision !== undefined) checkRevision(expectedModRevision, 'expectedModRevision');
    return this.write(() => {
      const latest = this.liveRow(key);
      if (expectedModRevision !== undefined && latest.revision !== expectedModRevision) {
        throw StoreError.conflict(key, expectedModRevision, latest.revision);
      }
      return { revision: this.tombstone(latest), prev: rowToKeyValue(latest) };
    });
  }

  private liveRow(key: string): LogRow {
    const latest = this.log.latest(key);
    if (latest === undefined || latest.deleted) throw StoreError.keyNotFound(key);
    return latest;
  }

  private tombstone(latest: LogRow): Revision {
    return this.log.append({
      key: latest.key,
      value: '',
      deleted: true,
      createRevision: latest.createRevision,
      prevRevision: latest.revision,
      lease: '',
    }).revision;
  }

  watch(prefix: string, options: WatchOptions = {}): AsyncIterable<WatchEvent> {
    checkPrefix(prefix);
    if (options.fromRevision !== undefined) checkRevision(options.fromRevision, 'watch fromRevision');
    if (this.closed) throw StoreError.unavailable(`${this.options.name} store is closed`);
    try {
      return this.hub.open(prefix, options.fromRevision, options.signal, options.onProgress);
    } catch (error) {
      throw toStoreError(error, `${this.options.name} watch`);
    }
  }

  /** Reads the rows other processes wrote since the last poll now: watches report progress up to the current revision. */
  requestProgress(): void {
    if (this.closed) return;
    try {
      this.hub.poll();
    } catch {
      // The periodic poll tries again.
    }
  }

  /**
   * Every call made in one turn of the event loop shares one read of the log, made after them
   * all (in the loop's check phase, like the group commit): each gets a revision at least as
   * new as the newest write at the moment it called. A consistent read per request costs a
   * fraction of a log read.
   */
  currentRevision(): Promise<Revision> {
    if (this.closed) return Promise.reject(StoreError.unavailable(`${this.options.name} store is closed`));
    return new Promise<Revision>((resolve, reject) => {
      if (this.revisionReaders === undefined) {
        this.revisionReaders = [];
        setImmediate(() => this.readRevision());
      }
      this.revisionReaders.push({ resolve, reject });
    });
  }

  private readRevision(): void {
    const readers = this.revisionReaders ?? [];
    this.revisionReaders = undefined;
    const read = this.read('currentRevision', () => this.log.currentRevision(), 'one');
    for (const reader of readers) read.then(reader.resolve, reader.reject);
  }

  compactedRevision(): Promise<Revision> {
    return this.read('compactedRevision', () => this.log.compactedRevision(), 'one');
  }

  compact(revision: Revision): Promise<void> {
    try {
      checkRevision(revision, 'compact revision');
      if (this.closed) throw StoreError.unavailable(`${this.options.name} store is closed`);
      // Feed synced watchers everything before history goes; lagging ones will get Compacted.
      this.hub.poll();
      this.log.transaction(() => {
        const current = this.log.currentRevision();
        if (revision > current) throw StoreError.invalid(`cannot compact at ${revision}: current revision is ${current}`);
        if (revision > this.log.compactedRevision()) this.log.compact(revision);
      });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(toStoreError(error, `${this.options.name} compact`));
    }
  }

  private checkedLease(lease: LeaseId | undefined): string {
    if (lease === undefined) return '';
    if (typeof lease !== 'string' || !LEASE_ID.test(lease)) throw StoreError.invalid(`lease id ${JSON.stringify(lease)} is not valid`);
    return lease;
  }

  private liveLease(id: string): { ttlSeconds: number } {
    const lease = this.log.getLease(id);
    if (lease === undefined || lease.expiresAtMs <= this.now()) throw StoreError.leaseNotFound(id);
    return lease;
  }

  /** etcd's lessor Promote, before the first sweep: every lease gets its full TTL again (downtime never counts; docs/ARCHITECTURE.md). */
  private renewAllLeases(): void {
    try {
      this.log.transaction(() => this.log.renewAllLeases(this.now()));
    } catch {
      // A full disk: the sweep, which writes too, fails alike.
    }
  }

  async grantLease(ttlSeconds: number): Promise<LeaseId> {
    checkTtl(ttlSeconds);
    return this.write(() => this.log.insertLease(ttlSeconds, this.now() + ttlSeconds * 1000).id);
  }

  async keepAliveLease(lease: LeaseId): Promise<number> {
    const id = this.checkedLease(lease);
    return this.write(() => {
      const { ttlSeconds } = this.liveLease(id);
      this.log.setLeaseExpiry(id, this.now() + ttlSeconds * 1000);
      return ttlSeconds;
    });
  }

  async revokeLease(lease: LeaseId): Promise<void> {
    const id = this.checkedLease(lease);
    return this.write(() => {
      if (this.log.getLease(id) === undefined) throw StoreError.leaseNotFound(id);
      this.dropLease(id);
    });
  }

  private dropLease(id: string): void {
    for (const row of this.log.keysWithLease(id)) this.tombstone(row);
    this.log.deleteLease(id);
  }

  /** Deletes the keys of every expired lease, and the leases. Runs on a timer. */
  async sweepLeases(): Promise<void> {
    if (this.closed) return;
    const expired = await this.read('sweepLeases', () => this.log.expiredLeases(this.now()));
    if (expired.length === 0) return;
    await this.write(() => {
      // Checked again inside the transaction: another process may have swept or renewed them.
      for (const id of this.log.expiredLeases(this.now())) this.dropLease(id);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending.length > 0 || this.flushScheduled) {
      await new Promise<void>((resolve) => (this.drained = resolve));
    }
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    this.hub.closeAll();
    try {
      this.log.close();
    } catch (error) {
      throw toStoreError(error, `${this.options.name} close`);
    }
  }
}
