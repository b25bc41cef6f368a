import { LogStore, type LogStoreOptions } from '../log/log-store.js';
import type { Store } from '../types.js';
import { MemoryLog } from './memory-log.js';

/** A store that lives in memory only: for unit tests. Passes the same conformance suite. */
export function openMemoryStore(options: Omit<LogStoreOptions, 'name'> = {}): Store {
  return new LogStore(new MemoryLog(), { ...options, name: 'memory' });
}
