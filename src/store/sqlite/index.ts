import { closeSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { toStoreError } from '../errors.js';
import { LogStore, type LogStoreOptions } from '../log/log-store.js';
import type { Store } from '../types.js';
import { SqliteLog, type SqliteLogOptions } from './sqlite-log.js';

export interface SqliteStoreOptions extends Omit<LogStoreOptions, 'name'>, SqliteLogOptions {
  /** The database file; its folder is created (0700) when missing. */
  readonly path: string;
}

/**
 * The embedded default store: a revision log in one SQLite file. Other processes may open the
 * same file; their writes reach this process's watchers through a poll (default every 100 ms).
 */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  try {
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    createPrivately(options.path);
    const log = new SqliteLog(options.path, options);
    return new LogStore(log, { pollIntervalMs: 100, ...options, name: 'sqlite', location: options.path });
  } catch (error) {
    throw toStoreError(error, `cannot open sqlite store at ${options.path}`);
  }
}

/**
 * Creates the database file 0600 before SQLite opens it (an existing one keeps its content
 * and is made 0600): SQLite gives its -wal and -shm files the database file's mode, so the
 * whole store is private to the user whatever the umask.
 */
function createPrivately(path: string): void {
  const fd = openSync(path, 'a', 0o600);
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}
