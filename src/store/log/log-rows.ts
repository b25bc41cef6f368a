import type { KeyValue, WatchEvent } from '../types.js';
import type { LogChange, LogRow } from './log-backend.js';

export function rowToKeyValue(row: LogRow): KeyValue {
  const kv = { key: row.key, value: row.value, createRevision: row.createRevision, modRevision: row.revision };
  return row.lease === '' ? kv : { ...kv, lease: row.lease };
}

/** The watch event a log row stands for, given the key's previous row. */
export function changeToEvent({ row, prev }: LogChange): WatchEvent {
  const previous: KeyValue | undefined = prev === undefined || prev.deleted ? undefined : rowToKeyValue(prev);
  if (row.deleted) {
    // A tombstone always follows a live row; the fallback only keeps a damaged log readable.
    const fallback = { key: row.key, value: '', createRevision: row.createRevision, modRevision: row.prevRevision };
    return { type: 'DELETED', key: row.key, revision: row.revision, prev: previous ?? fallback };
  }
  const kv = rowToKeyValue(row);
  if (previous === undefined || row.createRevision === row.revision) {
    return { type: 'ADDED', key: row.key, revision: row.revision, kv };
  }
  return { type: 'MODIFIED', key: row.key, revision: row.revision, kv, prev: previous };
}
