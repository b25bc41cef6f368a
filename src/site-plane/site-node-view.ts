import { StatusError } from '../apimachinery/errors/status-error.js';
import { PLATFORM_TENANT } from '../auth/principal.js';
import { listObjects, type ListQuery, type ListResponse } from '../registry/list.js';
import type { ObjectCodec } from '../registry/object-codec.js';
import { storeErrorToStatus } from '../registry/store-errors.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import { openWatch, type ClientWatch, type KubeWatchSink, type WatchSelection } from '../registry/open-watch.js';
import type { Store } from '../store/types.js';
import type { WatchCache } from '../store/watch-cache.js';
import type { ClusterNodeSource } from '../vk8s/http/cluster-node-source.js';
import { nodeStrategy } from '../vk8s/kinds/node.js';
import type { KubeObject } from '../apimachinery/object.js';
import { nodeKey, NODES_PREFIX, ownerNodesPrefix } from './site-keys.js';

export interface SiteNodeViewDependencies {
  readonly store: Store;
  /** The watch cache of `/sites/nodes/`. */
  readonly cache: WatchCache;
  readonly codec: ObjectCodec;
  /** The owner tenant of a site, when known (its claim). */
  readonly ownerOf: (site: string) => string | undefined;
}

const NODES = { resource: 'nodes', group: '' };

/**
 * The vK8s `nodes` of a cluster of tenant T: the Nodes of every regional-edge site (owner
 * `svc-io`) and of T's customer-edge sites, read from `/sites/nodes/` with the registry's own
 * list and watch code (a key filter over the one prefix): selectors, Tables, limit/continue,
 * resourceVersion semantics and bookmarks as for stored resources.
 */
export class SiteNodeView implements ClusterNodeSource {
  constructor(private readonly deps: SiteNodeViewDependencies) {}

  /** Pure: does a Node key belong to what `cluster` sees? */
  static visibleTo(cluster: ClusterRef): (key: string) => boolean {
    const platform = ownerNodesPrefix(PLATFORM_TENANT);
    const own = ownerNodesPrefix(cluster.tenant);
    return (key) => key.startsWith(platform) || key.startsWith(own);
  }

  /** A consistent read of one Node: `<site>-<node>`, its site found among the name's prefixes. */
  async get(cluster: ClusterRef, name: string): Promise<KubeObject> {
    const owners = cluster.tenant === PLATFORM_TENANT ? [PLATFORM_TENANT] : [PLATFORM_TENANT, cluster.tenant];
    const sites = [...name.matchAll(/-/g)].map((m) => name.slice(0, m.index));
    const known = sites.flatMap((site) => {
      const owner = this.deps.ownerOf(site);
      return owner !== undefined && owners.includes(owner) ? [nodeKey(owner, site, name)] : [];
    });
    const keys = known.length > 0 ? known : sites.flatMap((site) => owners.map((owner) => nodeKey(owner, site, name)));
    for (const key of keys) {
      try {
        const kv = await this.deps.store.get(key);
        if (kv !== undefined) return this.deps.codec.decodeOnce(kv);
      } catch (error) {
        throw storeErrorToStatus(error, NODES, name);
      }
    }
    throw StatusError.notFound(NODES, name);
  }

  list(cluster: ClusterRef, query: ListQuery): Promise<ListResponse> {
    const { store, cache, codec } = this.deps;
    return listObjects({ store, cache, codec, strategy: nodeStrategy, prefix: NODES_PREFIX, ref: NODES, keyFilter: SiteNodeView.visibleTo(cluster) }, query);
  }

  watch(cluster: ClusterRef, selection: WatchSelection, sink: KubeWatchSink): ClientWatch {
    const { cache, codec } = this.deps;
    return openWatch({ cache, codec, strategy: nodeStrategy, prefix: NODES_PREFIX, keyFilter: SiteNodeView.visibleTo(cluster) }, selection, sink);
  }
}
