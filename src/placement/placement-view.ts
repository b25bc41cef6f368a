import type { ClusterRef } from '../registry/strategy.js';
import type { KubeObject } from '../vk8s/object.js';
import type { PlacedSite } from './placed-site.js';

export interface PlacementView {
  /** Sites `object` of `resource` in `cluster` is placed on now (annotations > virtual-sites > vk8s vsite_refs),
   *  only sites whose state allows new work. Problems (missing refs, bad values) are reported as Warning events by
   *  the placement engine itself, not by callers. */
  sitesFor(resource: { group: string; resource: string }, cluster: ClusterRef, object: KubeObject): readonly PlacedSite[];
  /** Called with every cluster whose placement inputs changed (site labels/state, virtual sites, the virtual_k8s
   *  object): controllers re-enqueue that cluster's objects of their kinds. */
  onClusterChange(handler: (cluster: ClusterRef) => void): void;
}
