import type { LeaseRow, LogBackend, LogChange, LogRow, NewLogRow } from '../log/log-backend.js';
import type { Revision } from '../types.js';

/** Index of the first element of the sorted array that is not below `value`. */
function lowerBound<T>(items: readonly T[], value: number | string, of: (item: T) => number | string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (of(items[mid] as T) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The revision log in memory, for unit tests. Same semantics as the SQLite log; a throw
 * inside a transaction undoes every change made in it.
 */
export class MemoryLog implements LogBackend {
  private rows: LogRow[] = [];
  private readonly byRevision = new Map<Revision, LogRow>();
  private readonly byKey = new Map<string, LogRow[]>();
  private sortedKeys: string[] = [];
  private revision = 0;
  private compacted = 0;
  private readonly leases = new Map<string, LeaseRow>();
  private nextLease = 1;
  private undo: Array<() => void> | undefined;

  snapshot<T>(fn: () => T): T {
    return fn();
  }

  transaction<T>(fn: () => T): T {
    if (this.undo !== undefined) return fn();
    this.undo = [];
    try {
      const result = fn();
      this.undo = undefined;
      return result;
    } catch (error) {
      const steps = this.undo ?? [];
      this.undo = undefined;
      for (const step of steps.reverse()) step();
      throw error;
    }
  }

  private record(step: () => void): void {
    this.undo?.push(step);
  }

  latest(key: string): LogRow | undefined {
    const rows = this.byKey.get(key);
    return rows?.[rows.length - 1];
  }

  append(fields: NewLogRow): LogRow {
    const revision = ++this.revision;
    const row: LogRow = { ...fields, revision, createRevision: fields.createRevision ?? revision };
    this.rows.push(row);
    this.byRevision.set(revision, row);
    let keyRows = this.byKey.get(row.key);
    if (keyRows === undefined) {
      keyRows = [];
      this.byKey.set(row.key, keyRows);
      this.sortedKeys.splice(lowerBound(this.sortedKeys, row.key, (k) => k), 0, row.key);
      this.record(() => {
        this.byKey.delete(row.key);
        this.sortedKeys.splice(lowerBound(this.sortedKeys, row.key, (k) => k), 1);
      });
    }
    keyRows.push(row);
    const rowsOfKey = keyRows;
    this.record(() => {
      this.rows.pop();
      this.byRevision.delete(revision);
      rowsOfKey.pop();
      this.revision--;
    });
    return row;
  }

  private rowAt(key: string, revision: Revision): LogRow | undefined {
    const rows = this.byKey.get(key) ?? [];
    const i = lowerBound(rows, revision + 1, (r) => r.revision) - 1;
    return i >= 0 ? rows[i] : undefined;
  }

  rangeAt(start: string, end: string, revision: Revision, afterKey: string | undefined, limit: number): LogRow[] {
    const out: LogRow[] = [];
    const from = afterKey === undefined ? lowerBound(this.sortedKeys, start, (k) => k) : lowerBound(this.sortedKeys, afterKey, (k) => k);
    for (let i = from; i < this.sortedKeys.length && out.length < limit; i++) {
      const key = this.sortedKeys[i] as string;
      if (key >= end) break;
      if (afterKey !== undefined && key <= afterKey) continue;
      const row = this.rowAt(key, revision);
      if (row !== undefined && !row.deleted) out.push(row);
    }
    return out;
  }

  changes(start: string, end: string, after: Revision, upTo: Revision, limit: number): LogChange[] {
    const out: LogChange[] = [];
    for (let i = lowerBound(this.rows, after + 1, (r) => r.revision); i < this.rows.length && out.length < limit; i++) {
      const row = this.rows[i] as LogRow;
      if (row.revision > upTo) break;
      if (row.key < start || row.key >= end) continue;
      out.push({ row, prev: this.byRevision.get(row.prevRevision) });
    }
    return out;
  }

  currentRevision(): Revision {
    return this.revision;
  }

  compactedRevision(): Revision {
    return this.compacted;
  }

  compact(revision: Revision): void {
    const dropped = new Set<LogRow>();
    for (const [key, rows] of this.byKey) {
      const last = lowerBound(rows, revision + 1, (r) => r.revision) - 1;
      if (last < 0) continue;
      const keepLast = !(rows[last] as LogRow).deleted;
      const cut = keepLast ? last : last + 1;
      for (const row of rows.slice(0, cut)) dropped.add(row);
      rows.splice(0, cut);
      if (rows.length === 0) {
        this.byKey.delete(key);
        this.sortedKeys.splice(lowerBound(this.sortedKeys, key, (k) => k), 1);
      }
    }
    for (const row of dropped) this.byRevision.delete(row.revision);
    this.rows = this.rows.filter((row) => !dropped.has(row));
    this.compacted = revision;
    // Compaction runs in its own transaction and cannot fail half-way; it is not undoable.
  }

  insertLease(ttlSeconds: number, expiresAtMs: number): LeaseRow {
    const lease: LeaseRow = { id: String(this.nextLease++), ttlSeconds, expiresAtMs };
    this.leases.set(lease.id, lease);
    this.record(() => {
      this.leases.delete(lease.id);
      this.nextLease--;
    });
    return lease;
  }

  getLease(id: string): LeaseRow | undefined {
    return this.leases.get(id);
  }

  setLeaseExpiry(id: string, expiresAtMs: number): void {
    const lease = this.leases.get(id);
    if (lease === undefined) return;
    this.leases.set(id, { ...lease, expiresAtMs });
    this.record(() => this.leases.set(id, lease));
  }

  renewAllLeases(nowMs: number): void {
    for (const lease of [...this.leases.values()]) this.setLeaseExpiry(lease.id, nowMs + lease.ttlSeconds * 1000);
  }

  deleteLease(id: string): void {
    const lease = this.leases.get(id);
    if (lease === undefined) return;
    this.leases.delete(id);
    this.record(() => this.leases.set(id, lease));
  }

  expiredLeases(nowMs: number): string[] {
    return [...this.leases.values()].filter((l) => l.expiresAtMs <= nowMs).map((l) => l.id);
  }

  keysWithLease(id: string): LogRow[] {
    const out: LogRow[] = [];
    for (const rows of this.byKey.values()) {
      const latest = rows[rows.length - 1];
      if (latest !== undefined && !latest.deleted && latest.lease === id) out.push(latest);
    }
    return out;
  }

  close(): void {
    this.rows = [];
  }
}
