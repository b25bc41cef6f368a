import type { PlacementView } from '../placement/placement-view.js';
import type { Informer, ObjectInformer } from '../runtime/object-informer.js';
import type { ControllerContext } from './controller-context.js';

/**
 * A shared informer as one leadership term sees it: reads go to the informer, handlers are
 * the term's (dropped when the term ends), so a controller written against plain informers
 * runs under the manager without outliving its term.
 */
export function termInformer(context: ControllerContext, informer: ObjectInformer): Informer {
  return {
    onEvent: (handler) => context.on.informer(informer, handler),
    get: (cluster, name) => informer.get(cluster, name),
    list: (cluster) => informer.list(cluster),
    dependentsOf: (uid) => informer.dependentsOf(uid),
    keys: () => informer.keys(),
  };
}

/** The placement view with the term's cluster-change subscriptions. */
export function termPlacement(context: ControllerContext): PlacementView {
  return {
    sitesFor: (resource, cluster, object) => context.placement.sitesFor(resource, cluster, object),
    placementOf: (resource, cluster, object, running) => context.placement.placementOf(resource, cluster, object, running),
    onClusterChange: (handler) => context.on.clusterChange(handler),
  };
}
