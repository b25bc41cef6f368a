import type { ObjectCodec } from '../registry/object-codec.js';
import { guaranteedUpdate } from '../store/guaranteed-update.js';
import { isStoreError } from '../store/errors.js';
import type { Store } from '../store/types.js';
import { jsonEqual, type KubeObject } from '../apimachinery/object.js';
import type { SiteRequest } from './registration-request.js';
import { nodeKey, siteNodesPrefix } from './site-keys.js';
import { containerRuntimeVersionOf, nodeNameOf, reregisteredNode, siteNodeObject } from './site-node.js';

export interface SiteNodeStoreDependencies {
  readonly store: Store;
  readonly codec: ObjectCodec;
  readonly newUid: () => string;
}

/**
 * The Node objects of the sites, under `/sites/nodes/<owner>/<site>/<node-name>`, stored as
 * the vK8s registry stores objects (JSON without resourceVersion) so the node views serve
 * them with the registry's list and watch code.
 */
export class SiteNodeStore {
  constructor(private readonly deps: SiteNodeStoreDependencies) {}

  /**
   * Makes the site's Nodes exactly its registered `nodes`: new ones created, existing ones
   * updated (keeping uid, creation time and conditions; capacity and runtime from the
   * registration), ones no longer registered deleted.
   */
  async replace(owner: string, registered: SiteRequest, now: string): Promise<void> {
    const { store, codec } = this.deps;
    const { name: site, type, nodes } = registered;
    const containerRuntimeVersion = containerRuntimeVersionOf(registered);
    const wanted = new Set(nodes.map((n) => nodeKey(owner, site, nodeNameOf(site, n.name))));
    for (const node of nodes) {
      const fresh = siteNodeObject(node, { site, type, uid: this.deps.newUid(), now, ...(containerRuntimeVersion === undefined ? {} : { containerRuntimeVersion }) });
      const key = nodeKey(owner, site, fresh.metadata.name ?? '');
      await guaranteedUpdate(
        store,
        key,
        (current) => {
          if (current === undefined) return codec.encode(fresh, key);
          const existing = codec.decodeOnce(current);
          const next = reregisteredNode(fresh, existing);
          return jsonEqual({ ...next, metadata: { ...next.metadata, resourceVersion: existing.metadata.resourceVersion } }, existing) ? current.value : codec.encode(next, key);
        },
        { allowCreate: true },
      );
    }
    const listed = await store.list(siteNodesPrefix(owner, site));
    for (const kv of listed.items) {
      if (wanted.has(kv.key)) continue;
      await store.delete(kv.key, kv.modRevision).catch((error: unknown) => {
        if (!isStoreError(error, 'KeyNotFound') && !isStoreError(error, 'Conflict')) throw error;
      });
    }
  }

  /** Deletes every Node of the site (it was decommissioned). */
  async removeAll(owner: string, site: string): Promise<void> {
    const listed = await this.deps.store.list(siteNodesPrefix(owner, site));
    for (const kv of listed.items) {
      await this.deps.store.delete(kv.key).catch((error: unknown) => {
        if (!isStoreError(error, 'KeyNotFound')) throw error;
      });
    }
  }

  /** Rewrites one Node with `compute` (undefined: no change) under compare-and-swap. */
  async update(owner: string, site: string, name: string, compute: (node: KubeObject) => KubeObject | undefined): Promise<void> {
    const { store, codec } = this.deps;
    try {
      const key = nodeKey(owner, site, name);
      await guaranteedUpdate(store, key, (current) => {
        if (current === undefined) return '';
        const next = compute(codec.decodeOnce(current));
        return next === undefined ? current.value : codec.encode(next, key);
      });
    } catch (error) {
      if (!isStoreError(error, 'KeyNotFound')) throw error;
    }
  }
}
