import type { Logger } from '../../observability/logger.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { ObjectWriter } from '../controller-kit/object-writer.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Informer } from '../runtime/object-informer.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import type { ResourceType } from '../../apimachinery/resource-type.js';
import { volumeNameFor } from './claim-binding.js';
import { volumeBinderReconciler } from './volume-binder-reconciler.js';
import { volumeReclaimer } from './volume-reclaimer.js';

export interface VolumeBinderControllerDeps {
  /** Shared informers, started (synced) before the controller: persistentvolumeclaims, persistentvolumes. */
  readonly informers: { readonly persistentVolumeClaims: Informer; readonly persistentVolumes: Informer };
  readonly storage: VirtualClusterStorage;
  readonly placement: PlacementView;
  readonly events: EventRecorder;
  readonly logger: Logger;
  /** Claims reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

const FIELD_MANAGER = 'volume-binder-controller';
const RECLAIMER = 'persistentvolume-reclaimer';

/**
 * The platform's claim binder and provisioner (see volume-binder-reconciler.ts), woken by
 * claims and placement changes, and the reclaimer of its volumes (volume-reclaimer.ts), woken
 * by volumes and by claims deleted.
 */
export function startVolumeBinderController(deps: VolumeBinderControllerDeps): { stop(): Promise<void> } {
  const claims = deps.informers.persistentVolumeClaims;
  const volumes = deps.informers.persistentVolumes;
  const writer = (resource: Pick<ResourceType, 'group' | 'resource'>): ObjectWriter => {
    const store = deps.storage.storeFor(resource);
    if (store === undefined) throw new Error(`no storage for ${resource.resource}`);
    return new ObjectWriter(store, FIELD_MANAGER);
  };
  const claimWriter = writer({ group: '', resource: 'persistentvolumeclaims' });
  const volumeWriter = writer({ group: '', resource: 'persistentvolumes' });
  const common = { logger: deps.logger, ...(deps.workers === undefined ? {} : { workers: deps.workers }), ...(deps.queue === undefined ? {} : { queue: deps.queue }) };
  const binder = startControllerLoop({
    name: FIELD_MANAGER,
    ...common,
    reconcile: volumeBinderReconciler({ claims, writer: claimWriter, volumes, volumeWriter, placement: deps.placement, events: deps.events, logger: deps.logger }),
  });
  const reclaimer = startControllerLoop({ name: RECLAIMER, ...common, reconcile: volumeReclaimer({ claims, claimWriter, volumes, volumeWriter }) });
  claims.onEvent((event) => {
    if (event.type !== 'deleted') binder.enqueue(event.key);
    else reclaimer.enqueue({ cluster: event.key.cluster, name: volumeNameFor(event.object) });
  });
  volumes.onEvent((event) => {
    if (event.type !== 'deleted') reclaimer.enqueue(event.key);
  });
  deps.placement.onClusterChange((cluster) => binder.enqueueAll(claims, cluster));
  binder.enqueueAll(claims);
  reclaimer.enqueueAll(volumes);
  return { stop: async () => void (await Promise.all([binder.stop(), reclaimer.stop()])) };
}
