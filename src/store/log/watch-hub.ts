import { StoreError } from '../errors.js';
import { prefixEnd } from '../keys.js';
import type { Revision, WatchEvent } from '../types.js';
import { WatchIterator } from '../watch-iterator.js';
import type { LogBackend, LogChange } from './log-backend.js';
import { changeToEvent } from './log-rows.js';

export interface WatchHubOptions {
  /** Rows read from the log per query. */
  readonly batchSize: number;
  /** A watcher whose consumer lags this many events behind stops being fed and reads the log itself. */
  readonly maxQueue: number;
}

/**
 * Fans the log out to watchers, after etcd's synced/unsynced watcher groups:
 * - *synced* watchers are fed by {@link poll}, which reads each new log row once for all;
 * - *unsynced* watchers (started in the past, or whose consumer fell behind) read the log
 *   themselves from their position until they reach the hub's position, then join the synced
 *   group. Because every step is synchronous JavaScript over a synchronous log, a watcher
 *   moves between the groups without missing or repeating a revision.
 */
export class WatchHub {
  private lastSeen: Revision;
  private readonly synced = new Set<LogWatcher>();
  private readonly all = new Set<LogWatcher>();

  constructor(
    private readonly log: LogBackend,
    private readonly options: WatchHubOptions,
  ) {
    this.lastSeen = log.currentRevision();
  }

  /**
   * A watcher of [prefix, prefixEnd) positioned after `fromRevision` (now when undefined).
   * `onProgress` hears the hub's position whenever the watcher is synced and has handed over
   * every event up to it (after each poll that moved the position, and when it joins).
   */
  open(prefix: string, fromRevision: Revision | undefined, signal: AbortSignal | undefined, onProgress?: (revision: Revision) => void): LogWatcher {
    const position = fromRevision ?? this.log.currentRevision();
    const watcher = new LogWatcher(this, prefix, prefixEnd(prefix), position);
    this.all.add(watcher);
    return watcher.reportProgressTo(onProgress).endOn(signal);
  }

  /** Reads the rows written since the last poll and feeds them to the synced watchers. */
  poll(): void {
    this.log.snapshot(() => this.pollInSnapshot());
  }

  private pollInSnapshot(): void {
    const current = this.log.currentRevision();
    if (current <= this.lastSeen) return;
    if (this.synced.size === 0) {
      this.lastSeen = current;
      return;
    }
    const compacted = this.log.compactedRevision();
    if (this.lastSeen < compacted) {
      // Another process compacted history this hub had not read yet: events may be gone.
      for (const watcher of [...this.synced]) watcher.fail(StoreError.compacted(this.lastSeen, compacted));
      this.lastSeen = current;
      return;
    }
    for (;;) {
      const changes = this.log.changes('/', '\x7f', this.lastSeen, current, this.options.batchSize);
      for (const change of changes) {
        for (const watcher of this.synced) watcher.offer(change);
        this.lastSeen = change.row.revision;
      }
      if (changes.length < this.options.batchSize) break;
    }
    this.lastSeen = current;
    for (const watcher of this.synced) watcher.noteProgress(current);
  }

  /** Moves an unsynced watcher forward by one batch read from the log; joins it to the synced group when caught up. */
  catchUp(watcher: LogWatcher): void {
    this.log.snapshot(() => this.catchUpInSnapshot(watcher));
  }

  private catchUpInSnapshot(watcher: LogWatcher): void {
    const compacted = this.log.compactedRevision();
    if (watcher.position < compacted) {
      watcher.fail(StoreError.compacted(watcher.position, compacted));
      return;
    }
    const upTo = this.lastSeen;
    if (watcher.position < upTo) {
      const changes = this.log.changes(watcher.start, watcher.end, watcher.position, upTo, this.options.batchSize);
      for (const change of changes) watcher.enqueue(changeToEvent(change));
      if (changes.length === this.options.batchSize) return;
      watcher.position = upTo;
    }
    watcher.synced = true;
    this.synced.add(watcher);
    watcher.noteProgress(upTo);
  }

  unsync(watcher: LogWatcher): void {
    watcher.synced = false;
    this.synced.delete(watcher);
  }

  remove(watcher: LogWatcher): void {
    this.unsync(watcher);
    this.all.delete(watcher);
  }

  get maxQueue(): number {
    return this.options.maxQueue;
  }

  /** Ends every watcher (the store is closing). */
  closeAll(): void {
    for (const watcher of [...this.all]) watcher.finish();
  }

  get watcherCount(): number {
    return this.all.size;
  }
}

/** One watch on the log: an async iterator over the events of its key range. */
export class LogWatcher extends WatchIterator {
  /** Revision of the newest event queued or delivered (the watch resumes after it). */
  position: Revision;
  /** Whether the hub feeds this watcher (set only by the hub). */
  synced = false;

  constructor(
    private readonly hub: WatchHub,
    readonly start: string,
    readonly end: string,
    position: Revision,
  ) {
    super();
    this.position = position;
  }

  /** Called by the hub for every new row while this watcher is synced. */
  offer(change: LogChange): void {
    const { row } = change;
    if (row.revision <= this.position || row.key < this.start || row.key >= this.end) return;
    this.enqueue(changeToEvent(change));
    if (this.queued >= this.hub.maxQueue) this.hub.unsync(this);
  }

  /** Every event up to `revision` has been queued (the hub's position, while synced). */
  noteProgress(revision: Revision): void {
    this.progressed(revision);
  }

  enqueue(event: WatchEvent): void {
    this.position = event.revision;
    this.push(event);
  }

  protected refill(): boolean {
    if (this.synced) return true; // the hub will push
    this.hub.catchUp(this);
    return false;
  }

  protected release(): void {
    this.hub.remove(this);
  }
}
