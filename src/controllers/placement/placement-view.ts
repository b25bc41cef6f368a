import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PlacedSite } from './placed-site.js';

/** Which resource an object is of: API group ("" for core) and plural name. */
export interface ResourceKind {
  readonly group: string;
  readonly resource: string;
}

/** Where objects of the virtual clusters belong: the controllers' view of placement. */
export interface PlacementView {
  /**
   * Sites `object` of `resource` in `cluster` is placed on now (annotations > virtual-sites >
   * vk8s vsite_refs), sorted by name. Sites whose state allows no work at all are left out;
   * sites that keep their work but get no new work come with `acceptsNewWork: false`.
   * Problems (missing refs, bad values) are reported as Warning events by the placement
   * engine itself, not by callers. Cheap: memoised per cluster and annotation values.
   */
  sitesFor(resource: ResourceKind, cluster: ClusterRef, object: KubeObject): readonly PlacedSite[];
  /**
   * Called with every cluster whose placement inputs changed (site labels/state, virtual
   * sites, the virtual_k8s object, workload flavors): controllers re-enqueue that cluster's
   * objects of their kinds.
   */
  onClusterChange(handler: (cluster: ClusterRef) => void): void;
}
