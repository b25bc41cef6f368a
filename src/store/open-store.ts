import { openEtcdStore } from './etcd/index.js';
import { openMemoryStore } from './memory/index.js';
import { openSqliteStore } from './sqlite/index.js';
import type { Store } from './types.js';

/** Which backend to open, as the server's flags and configuration name it. */
export type StoreConfig =
  | { readonly backend: 'sqlite'; readonly path: string }
  | { readonly backend: 'etcd'; readonly endpoints: readonly string[] }
  | { readonly backend: 'memory' };

export function openStore(config: StoreConfig): Store {
  switch (config.backend) {
    case 'sqlite':
      return openSqliteStore({ path: config.path });
    case 'etcd':
      return openEtcdStore({ endpoints: config.endpoints });
    case 'memory':
      return openMemoryStore();
  }
}

/** A one-line description for logs: never includes credentials. */
export function describeStore(config: StoreConfig): string {
  switch (config.backend) {
    case 'sqlite':
      return `sqlite ${config.path}`;
    case 'etcd':
      return `etcd ${config.endpoints.map((e) => e.replace(/\/\/[^@/]*@/, '//')).join(',')}`;
    case 'memory':
      return 'memory';
  }
}
