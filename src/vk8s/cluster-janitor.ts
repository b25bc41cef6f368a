import { objectKey as configKey } from '../config/keys.js';
import type { Logger } from '../observability/logger.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { Store } from '../store/types.js';
import type { VirtualClusterStorage } from './cluster-storage.js';

const VIRTUAL_K8S_KEY = /^\/config\/([^/]+)\/virtual_k8s\/([^/]+)\/([^/]+)$/;
const CLUSTER_OF_KEY = /^\/vk8s\/[^/]+\/[^/]+\/([^/]+)\/([^/]+)\/([^/]+)\//;

/** The cluster a deleted virtual_k8s key stood for (pure). */
function clusterOfConfigKey(key: string): ClusterRef | undefined {
  const match = VIRTUAL_K8S_KEY.exec(key);
  return match === null ? undefined : { tenant: match[1] ?? '', namespace: match[2] ?? '', name: match[3] ?? '' };
}

/** The cluster a vK8s object key belongs to (pure). */
function clusterOfObjectKey(key: string): ClusterRef | undefined {
  const match = CLUSTER_OF_KEY.exec(key);
  return match === null ? undefined : { tenant: match[1] ?? '', namespace: match[2] ?? '', name: match[3] ?? '' };
}

/**
 * Deleting a virtual_k8s object deletes its cluster's objects: the janitor watches the
 * configuration keys and, when a virtual_k8s key is deleted, removes everything stored for
 * that cluster. At start it sweeps clusters whose virtual_k8s object went away while no
 * server was running. A cluster created again with the same name starts empty.
 */
export function startClusterJanitor(options: { store: Store; storage: VirtualClusterStorage; logger: Logger }): () => void {
  const { store, storage, logger } = options;
  const controller = new AbortController();
  const remove = async (cluster: ClusterRef, why: string): Promise<void> => {
    const removed = await storage.deleteCluster(cluster);
    logger.info({ cluster, removed, why }, 'virtual cluster objects deleted');
  };
  const run = async (): Promise<void> => {
    const from = await store.currentRevision();
    const seen = new Map<string, ClusterRef>();
    for (const generic of storage.all) {
      for (const kv of generic.cache.list().items) {
        const cluster = clusterOfObjectKey(kv.key);
        if (cluster !== undefined) seen.set(`${cluster.tenant}/${cluster.namespace}/${cluster.name}`, cluster);
      }
    }
    for (const cluster of seen.values()) {
      if ((await store.get(configKey(cluster.tenant, 'virtual_k8s', cluster.namespace, cluster.name))) === undefined) await remove(cluster, 'swept at start');
    }
    for await (const event of store.watch('/config/', { fromRevision: from, signal: controller.signal })) {
      if (event.type !== 'DELETED') continue;
      const cluster = clusterOfConfigKey(event.key);
      if (cluster !== undefined) await remove(cluster, 'virtual_k8s deleted');
    }
  };
  const loop = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        await run();
      } catch (error) {
        if (controller.signal.aborted) return;
        logger.warn({ err: error }, 'virtual cluster janitor failed; restarting in 1 s');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  };
  void loop();
  return () => controller.abort();
}
