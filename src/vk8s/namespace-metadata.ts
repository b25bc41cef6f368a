import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import { clusterPrefix, objectKey, resourcePrefix } from '../registry/keys.js';
import type { PrefixCache } from '../store/prefix-cache.js';
import type { KeyValue, Store } from '../store/types.js';

/** What users may set on a virtual cluster's namespace: its labels (Pod Security's among them) and annotations. */
export interface NamespaceMetadata {
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

const NAMESPACES = { group: '', resource: 'namespaces' } as const;

/** The store prefix of every cluster's namespace metadata (one key per cluster). */
export const NAMESPACE_METADATA_PREFIX = resourcePrefix(NAMESPACES);

/** The prefix of one cluster's namespace metadata, deleted with the cluster. */
export function namespaceMetadataPrefix(cluster: ClusterRef): string {
  return clusterPrefix(NAMESPACES, cluster);
}

function keyOf(cluster: ClusterRef): string {
  return objectKey(NAMESPACES, cluster, cluster.namespace);
}

/**
 * The labels and annotations of the virtual clusters' namespaces (the namespace itself is
 * synthesized from the virtual_k8s object): one store key per cluster, read from a watch-fed
 * mirror so admission reads them without a store round trip, written with compare-and-swap.
 */
export class NamespaceMetadataStore {
  constructor(
    private readonly store: Store,
    private readonly cache: PrefixCache,
  ) {}

  /** The cluster's namespace metadata now, and the revision it was written at (undefined: never written). */
  current(cluster: ClusterRef): { readonly metadata: NamespaceMetadata; readonly revision?: number } {
    const found = this.cache.lookup(keyOf(cluster));
    if (found.state !== 'present') return { metadata: {} };
    return { metadata: JSON.parse(found.kv.value) as NamespaceMetadata, revision: found.kv.modRevision };
  }

  /** The labels of the cluster's namespace. */
  labels(cluster: ClusterRef): Readonly<Record<string, string>> {
    return this.current(cluster).metadata.labels ?? {};
  }

  /** Writes the metadata if it was still at `revision` (undefined: never written); the store's Conflict or KeyExists otherwise. */
  async write(cluster: ClusterRef, metadata: NamespaceMetadata, revision: number | undefined): Promise<KeyValue> {
    const value = JSON.stringify(metadata);
    const kv = revision === undefined ? await this.store.create(keyOf(cluster), value) : await this.store.update(keyOf(cluster), value, revision);
    this.cache.observe({ kv });
    return kv;
  }
}
