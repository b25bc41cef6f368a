import type { Logger } from '../../observability/logger.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { ObjectWriter } from '../controller-kit/object-writer.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Informer } from '../runtime/object-informer.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import { volumeBinderReconciler } from './volume-binder-reconciler.js';

export interface VolumeBinderControllerDeps {
  /** Shared informer, started (synced) before the controller: persistentvolumeclaims. */
  readonly informers: { readonly persistentVolumeClaims: Informer };
  readonly storage: VirtualClusterStorage;
  readonly placement: PlacementView;
  readonly events: EventRecorder;
  readonly logger: Logger;
  /** Claims reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

const FIELD_MANAGER = 'volume-binder-controller';

/** The platform's claim binder (see volume-binder-reconciler.ts), woken by claims and placement changes. */
export function startVolumeBinderController(deps: VolumeBinderControllerDeps): { stop(): Promise<void> } {
  const claims = deps.informers.persistentVolumeClaims;
  const store = deps.storage.storeFor({ group: '', resource: 'persistentvolumeclaims' });
  if (store === undefined) throw new Error('no storage for persistentvolumeclaims');
  const loop = startControllerLoop({
    name: FIELD_MANAGER,
    logger: deps.logger,
    ...(deps.workers === undefined ? {} : { workers: deps.workers }),
    ...(deps.queue === undefined ? {} : { queue: deps.queue }),
    reconcile: volumeBinderReconciler({ claims, writer: new ObjectWriter(store, FIELD_MANAGER), placement: deps.placement, events: deps.events, logger: deps.logger }),
  });
  claims.onEvent((event) => {
    if (event.type !== 'deleted') loop.enqueue(event.key);
  });
  deps.placement.onClusterChange((cluster) => loop.enqueueAll(claims, cluster));
  loop.enqueueAll(claims);
  return { stop: () => loop.stop() };
}
