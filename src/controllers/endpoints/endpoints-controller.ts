import type { Logger } from '../../observability/logger.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { ObjectWriter } from '../controller-kit/object-writer.js';
import { isPodReady, podSpecOf, podStatusOf } from '../runtime/pod-state.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Informer } from '../runtime/object-informer.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import { endpointsReconciler, servicesSelecting } from './endpoints-reconciler.js';

export interface EndpointsControllerDeps {
  /** Shared informers, started (synced) before the controller: services, pods, endpoints. */
  readonly informers: { readonly services: Informer; readonly pods: Informer; readonly endpoints: Informer };
  /** Writes Endpoints (users cannot). */
  readonly storage: VirtualClusterStorage;
  readonly events: EventRecorder;
  readonly logger: Logger;
  /** Services reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

const FIELD_MANAGER = 'endpoint-controller';

/** What of a pod its Endpoints show: a change elsewhere (most status writes) wakes no Service. */
function endpointFingerprint(pod: KubeObject): string {
  const spec = podSpecOf(pod);
  return JSON.stringify([
    pod.metadata.labels ?? {},
    podStatusOf(pod).podIP ?? '',
    isPodReady(pod),
    pod.metadata.deletionTimestamp ?? '',
    spec.nodeName ?? '',
    spec.hostname ?? '',
    spec.subdomain ?? '',
    (podStatusOf(pod).phase ?? '') === 'Failed' || (podStatusOf(pod).phase ?? '') === 'Succeeded',
  ]);
}

/**
 * The endpoints controller of every virtual cluster (see endpoints-reconciler.ts): woken by
 * Services, by pods whose labels, IP, readiness, node or deletion changed (for each Service
 * selecting them before or after), and by changes to Endpoints (which it repairs).
 */
export function startEndpointsController(deps: EndpointsControllerDeps): { stop(): Promise<void> } {
  const { informers } = deps;
  const store = deps.storage.storeFor({ group: '', resource: 'endpoints' });
  if (store === undefined) throw new Error('no storage for endpoints');
  const loop = startControllerLoop({
    name: FIELD_MANAGER,
    logger: deps.logger,
    ...(deps.workers === undefined ? {} : { workers: deps.workers }),
    ...(deps.queue === undefined ? {} : { queue: deps.queue }),
    reconcile: endpointsReconciler({ ...informers, writer: new ObjectWriter(store, FIELD_MANAGER), events: deps.events, logger: deps.logger }),
  });
  informers.services.onEvent((event) => loop.enqueue(event.key));
  informers.endpoints.onEvent((event) => {
    if (event.type !== 'added') loop.enqueue(event.key);
  });
  informers.pods.onEvent((event) => {
    if (event.type === 'updated' && endpointFingerprint(event.old) === endpointFingerprint(event.object)) return;
    const labels = event.type === 'updated' ? [event.object.metadata.labels, event.old.metadata.labels] : [event.object.metadata.labels];
    for (const service of servicesSelecting(informers.services.list(event.key.cluster), labels)) {
      if (service.metadata.name !== undefined) loop.enqueue({ cluster: event.key.cluster, name: service.metadata.name });
    }
  });
  loop.enqueueAll(informers.services);
  // Endpoints whose Service went while no controller ran (kube's checkLeftoverEndpoints).
  loop.enqueueAll(informers.endpoints);
  return { stop: () => loop.stop() };
}
