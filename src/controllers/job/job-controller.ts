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
import { jobReconciler } from './job-reconciler.js';

export interface JobControllerDeps {
  /** Shared informers, started (synced) before the controller: jobs (batch), pods. */
  readonly informers: { readonly jobs: Informer; readonly pods: Informer };
  /** The platform's internal client: writes pods and Job status. */
  readonly storage: VirtualClusterStorage;
  readonly placement: PlacementView;
  readonly podTemplateFor: PodTemplateFor;
  readonly events: EventRecorder;
  /** startTime, completionTime, condition times and activeDeadlineSeconds. */
  readonly clock: Clock;
  readonly logger: Logger;
  /** Jobs reconciled at once (default 2). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

const FIELD_MANAGER = 'job-controller';

/**
 * The Job controller of every virtual cluster: each Job runs its completions on every site it
 * is placed on (see job-reconciler.ts). Woken by its Jobs, their pods, placement changes,
 * and the Job's activeDeadlineSeconds.
 */
export function startJobController(deps: JobControllerDeps): { stop(): Promise<void> } {
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
    reconcile: jobReconciler({
      jobs: informers.jobs,
      pods: informers.pods,
      writers: { jobs: writer({ group: 'batch', resource: 'jobs' }), pods: writer({ group: '', resource: 'pods' }) },
      placement: deps.placement,
      podTemplateFor: deps.podTemplateFor,
      events: deps.events,
      expectations,
      clock: deps.clock,
      logger: deps.logger,
    }),
  });
  informers.jobs.onEvent((event) => loop.enqueue(event.key));
  watchDependents(informers.pods, { ownerKind: 'Job', enqueue: (key) => loop.enqueue(key), expectations });
  deps.placement.onClusterChange((cluster) => loop.enqueueAll(informers.jobs, cluster));
  loop.enqueueAll(informers.jobs);
  return { stop: () => loop.stop() };
}
