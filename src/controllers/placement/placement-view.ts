import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PlacedSite } from './placed-site.js';

/** Which resource an object is of: API group ("" for core) and plural name. */
export interface ResourceKind {
  readonly group: string;
  readonly resource: string;
}

/** A workload's placement: see {@link PlacementView.placementOf}. */
export interface WorkloadPlacement {
  readonly sites: readonly PlacedSite[];
  /** Set when the placement references resolve to no site: a sentence naming them. */
  readonly unresolved?: string;
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
   * Where a workload (a kind that makes pods) is placed, given the sites it `running` on now
   * (its per-site objects or pods). Like `sitesFor`, except when its placement references
   * resolve to no site at all (a site or virtual site that does not exist, a virtual site
   * selecting nothing): then the workload stays where it runs — `sites` are the running
   * sites that still exist and allow work — and `unresolved` says which references resolve
   * nowhere. The engine records a Warning event `PlacementUnresolved` on the object (once per
   * generation); callers set the workload's `Placed` condition from `unresolved`.
   */
  placementOf(resource: ResourceKind, cluster: ClusterRef, object: KubeObject, running: Iterable<string>): WorkloadPlacement;
  /**
   * Called with every cluster whose placement inputs changed (site labels/state, virtual
   * sites, the virtual_k8s object, workload flavors): controllers re-enqueue that cluster's
   * objects of their kinds.
   */
  onClusterChange(handler: (cluster: ClusterRef) => void): void;
}
