import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { PlacedObjectKind, PlacedObjects } from './site-api-client.js';

type Kind = PlacedObjectKind;
const KINDS: readonly Kind[] = ['configmaps', 'secrets', 'persistentvolumeclaims'];

/** An object and those of the agent's sites it is placed on. */
export interface PlacedObject {
  readonly object: KubeObject;
  readonly sites: readonly string[];
}

/** ConfigMaps, Secrets and PersistentVolumeClaims of one virtual cluster, by name. */
export interface ClusterObjects {
  configMap(namespace: string, name: string): KubeObject | undefined;
  secret(namespace: string, name: string): KubeObject | undefined;
  claim(namespace: string, name: string): PlacedObject | undefined;
}

const clusterKey = (cluster: ClusterRef): string => `${cluster.tenant}/${cluster.namespace}/${cluster.name}`;

/**
 * The ConfigMaps, Secrets and claims placed on the agent's sites, as kubelet's TTL cache of
 * them: read again from the site API when older than `ttlMs` (a pod's start waits for that
 * read), so a change reaches new containers within the TTL. Secrets stay in memory only.
 * When the control plane cannot be read (unreachable, down), the objects read last serve —
 * a crashed container restarts offline with what it had — and while reads keep failing,
 * callers get those at once and the read is retried behind them (`onStale` hears when that begins);
 * only a cache that never read anything fails.
 */
export class PlacedObjectCache {
  private readonly byKind = new Map<Kind, Map<string, PlacedObject>>();
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;
  /** Something was read once. */
  private read = false;
  /** The last read failed: the control plane is unreachable for now. */
  private failing = false;

  constructor(
    private readonly list: (kind: Kind) => Promise<PlacedObjects>,
    private readonly now: () => number,
    private readonly ttlMs = 5000,
    private readonly onStale: (error: unknown) => void = () => undefined,
  ) {}

  /** The objects of `cluster`, fresh within the TTL, or the last read when the control plane cannot be read. */
  async of(cluster: ClusterRef): Promise<ClusterObjects> {
    if (this.now() - this.fetchedAt > this.ttlMs) {
      const refreshed = this.refresh().catch((error: unknown) => {
        if (!this.read) throw error;
      });
      if (!this.failing || !this.read) await refreshed;
    }
    const prefix = `${clusterKey(cluster)}/`;
    const find = (kind: Kind, name: string): PlacedObject | undefined => this.byKind.get(kind)?.get(prefix + name);
    return {
      configMap: (_namespace, name) => find('configmaps', name)?.object,
      secret: (_namespace, name) => find('secrets', name)?.object,
      claim: (_namespace, name) => find('persistentvolumeclaims', name),
    };
  }

  private refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        const started = this.now();
        for (const kind of KINDS) {
          const list = await this.list(kind);
          this.byKind.set(kind, new Map(list.items.map((item) => [`${clusterKey(item.cluster)}/${item.object.metadata.name ?? ''}`, { object: item.object, sites: item.sites }])));
        }
        this.fetchedAt = started;
        this.read = true;
        this.failing = false;
      } catch (error) {
        if (!this.failing && this.read) this.onStale(error);
        this.failing = true;
        throw error;
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }
}
