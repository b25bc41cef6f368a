import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { PlacedObjects } from './site-api-client.js';

type Kind = 'configmaps' | 'secrets';

/** ConfigMaps and Secrets of one virtual cluster, by name. */
export interface ClusterObjects {
  configMap(namespace: string, name: string): KubeObject | undefined;
  secret(namespace: string, name: string): KubeObject | undefined;
}

const clusterKey = (cluster: ClusterRef): string => `${cluster.tenant}/${cluster.namespace}/${cluster.name}`;

/**
 * The ConfigMaps and Secrets placed on the agent's sites, as kubelet's TTL cache of them: read
 * again from the site API when older than `ttlMs` (a pod's start waits for that read), so a
 * change reaches new containers within the TTL. Secrets stay in memory only.
 */
export class PlacedObjectCache {
  private readonly byKind = new Map<Kind, Map<string, KubeObject>>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly list: (kind: Kind) => Promise<PlacedObjects>,
    private readonly now: () => number,
    private readonly ttlMs = 5000,
  ) {}

  /** The objects of `cluster`, fresh within the TTL. */
  async of(cluster: ClusterRef): Promise<ClusterObjects> {
    if (this.now() - this.fetchedAt > this.ttlMs) await this.refresh();
    const prefix = `${clusterKey(cluster)}/`;
    const find = (kind: Kind, name: string): KubeObject | undefined => this.byKind.get(kind)?.get(prefix + name);
    return { configMap: (_namespace, name) => find('configmaps', name), secret: (_namespace, name) => find('secrets', name) };
  }

  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const started = this.now();
        for (const kind of ['configmaps', 'secrets'] as const) {
          const list = await this.list(kind);
          this.byKind.set(kind, new Map(list.items.map((item) => [`${clusterKey(item.cluster)}/${item.object.metadata.name ?? ''}`, item.object])));
        }
        this.fetchedAt = started;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
