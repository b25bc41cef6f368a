import type { Store } from '../types.js';
import { EtcdStore, type EtcdStoreOptions } from './etcd-store.js';

export type { EtcdStoreOptions } from './etcd-store.js';

/** The scale-out store: an etcd 3 cluster. */
export function openEtcdStore(options: EtcdStoreOptions): Store {
  return new EtcdStore(options);
}
