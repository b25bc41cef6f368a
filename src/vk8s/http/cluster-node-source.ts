import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ListQuery, ListResponse } from '../../registry/list.js';
import type { ClientWatch, KubeWatchSink, WatchSelection } from '../../registry/open-watch.js';

/**
 * The Nodes a virtual cluster shows when they are not its own stored objects but a view of
 * the platform's (the sites' Nodes): read-only, with the registry's list and watch semantics.
 */
export interface ClusterNodeSource {
  get(cluster: ClusterRef, name: string): Promise<KubeObject>;
  list(cluster: ClusterRef, query: ListQuery): Promise<ListResponse>;
  /** Opens a watch of the cluster's Nodes feeding `sink` (the registry's watch semantics). */
  watch(cluster: ClusterRef, selection: WatchSelection, sink: KubeWatchSink): ClientWatch;
}
