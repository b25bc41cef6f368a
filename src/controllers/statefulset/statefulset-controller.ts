import type { Logger } from '../../observability/logger.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { Clock } from '../../common/clock.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { watchDependents } from '../controller-kit/dependent-events.js';
import { Expectations } from '../runtime/expectations.js';
import { ObjectWriter } from '../controller-kit/object-writer.js';
import type { PodTemplateFor } from '../placement/pod-template-for.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Informer } from '../runtime/object-informer.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import { statefulSetReconciler } from './statefulset-reconciler.js';

export interface StatefulSetControllerDeps {
  /** Shared informers, started (synced) before the controller: statefulsets (apps), pods, persistentvolumeclaims. */
  readonly informers: { readonly statefulSets: Informer; readonly pods: Informer; readonly persistentVolumeClaims: Informer };
  /** The platform's internal client: writes pods, claims and StatefulSet status. */
  readonly storage: VirtualClusterStorage;
  readonly placement: PlacementView;
  readonly podTemplateFor: PodTemplateFor;
  readonly events: EventRecorder;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Whether a site is offline (controller-kit/site-offline.ts); none is without. */
  readonly siteOffline?: (site: string) => boolean;
  /** StatefulSets reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

const FIELD_MANAGER = 'statefulset-controller';

/**
 * The StatefulSet controller of every virtual cluster: each StatefulSet runs its ordinals on
 * every site it is placed on (see statefulset-reconciler.ts). Woken by its StatefulSets, its
 * pods (through their controller reference), and placement changes of a cluster.
 */
export function startStatefulSetController(deps: StatefulSetControllerDeps): { stop(): Promise<void> } {
  const { informers } = deps;
  const writer = (resource: { group: string; resource: string }): ObjectWriter => {
    const store = deps.storage.storeFor(resource);
    if (store === undefined) throw new Error(`no storage for ${resource.resource}`);
    return new ObjectWriter(store, FIELD_MANAGER);
  };
  const expectations = new Expectations(() => deps.clock.now().getTime());
  const loop = startControllerLoop({
    name: FIELD_MANAGER,
    logger: deps.logger,
    ...(deps.workers === undefined ? {} : { workers: deps.workers }),
    ...(deps.queue === undefined ? {} : { queue: deps.queue }),
    reconcile: statefulSetReconciler({
      statefulSets: informers.statefulSets,
      pods: informers.pods,
      claims: informers.persistentVolumeClaims,
      writers: {
        statefulSets: writer({ group: 'apps', resource: 'statefulsets' }),
        pods: writer({ group: '', resource: 'pods' }),
        claims: writer({ group: '', resource: 'persistentvolumeclaims' }),
      },
      placement: deps.placement,
      podTemplateFor: deps.podTemplateFor,
      events: deps.events,
      expectations,
      logger: deps.logger,
      ...(deps.siteOffline === undefined ? {} : { siteOffline: deps.siteOffline }),
    }),
  });
  informers.statefulSets.onEvent((event) => loop.enqueue(event.key));
  watchDependents(informers.pods, { ownerKind: 'StatefulSet', enqueue: (key) => loop.enqueue(key), expectations });
  deps.placement.onClusterChange((cluster) => loop.enqueueAll(informers.statefulSets, cluster));
  loop.enqueueAll(informers.statefulSets);
  return { stop: () => loop.stop() };
}
