import { readConsistentFrom } from '../registry/consistent-read.js';
import { clusterPrefix, objectKey } from '../registry/keys.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { VirtualClusterStorage } from '../vk8s/cluster-storage.js';
import type { KubeObject } from '../apimachinery/object.js';

/** The pods and Services certificates are derived from. Objects are shared: never modify them. */
export interface WorkloadSource {
  /** The pod as it is now, or undefined when it does not exist. */
  pod(cluster: ClusterRef, name: string): Promise<KubeObject | undefined>;
  /** The Services of a virtual cluster, from memory. */
  services(cluster: ClusterRef): readonly KubeObject[];
}

const PODS = { group: '', resource: 'pods' };
const SERVICES = { group: '', resource: 'services' };

/**
 * Reads from the virtual clusters' watch caches: a pod by a consistent read (the store's
 * current revision, then the cache once it has caught up — no read of the object from the
 * store), decoded once per stored value; Services from the cache's current contents.
 */
export function watchCacheWorkloads(storage: Pick<VirtualClusterStorage, 'storeFor'>, store: Parameters<typeof readConsistentFrom>[0]['store']): WorkloadSource {
  const pods = storage.storeFor(PODS);
  const services = storage.storeFor(SERVICES);
  if (pods === undefined || services === undefined) throw new Error('the virtual clusters have no pods or services store');
  return {
    pod: async (cluster, name) => {
      const { kv } = await readConsistentFrom({ store, cache: pods.cache }, objectKey(PODS, cluster, name));
      return kv === undefined ? undefined : pods.codec.decode(kv);
    },
    services: (cluster) => services.cache.list(clusterPrefix(SERVICES, cluster)).items.map((kv) => services.codec.decode(kv)),
  };
}
