import type { Logger } from '../../observability/logger.js';
import type { Clock } from '../../common/clock.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { watchDependents } from '../controller-kit/dependent-events.js';
import { ObjectWriter } from '../controller-kit/object-writer.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { Informer } from '../runtime/object-informer.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import { cronJobReconciler } from './cronjob-reconciler.js';

export interface CronJobControllerDeps {
  /** Shared informers, started (synced) before the controller: cronjobs (batch/v1beta1), jobs (batch). */
  readonly informers: { readonly cronJobs: Informer; readonly jobs: Informer };
  /** Writes Jobs and CronJob status. */
  readonly storage: VirtualClusterStorage;
  readonly events: EventRecorder;
  /** What time it is for schedules (tests move a fake clock). */
  readonly clock: Clock;
  readonly logger: Logger;
  /** CronJobs reconciled at once (default 2). */
  readonly workers?: number;
  /**
   * The queue's timers: a CronJob sleeps until its next scheduled time through
   * `queue.schedule` (tests inject a fake scheduler and `queue.now` on their clock).
   */
  readonly queue?: WorkQueueOptions;
}

const FIELD_MANAGER = 'cronjob-controller';

/**
 * The CronJob controller of every virtual cluster (see cronjob-reconciler.ts). Jobs it starts
 * carry the CronJob's placement annotations; the Job controller runs them per site. Woken by
 * its CronJobs, their Jobs, and each CronJob's next scheduled time. It needs no placement:
 * Jobs are placed by their own annotations.
 */
export function startCronJobController(deps: CronJobControllerDeps): { stop(): Promise<void> } {
  const { informers } = deps;
  const writer = (resource: { group: string; resource: string }): ObjectWriter => {
    const store = deps.storage.storeFor(resource);
    if (store === undefined) throw new Error(`no storage for ${resource.resource}`);
    return new ObjectWriter(store, FIELD_MANAGER);
  };
  const loop = startControllerLoop({
    name: FIELD_MANAGER,
    logger: deps.logger,
    ...(deps.workers === undefined ? {} : { workers: deps.workers }),
    ...(deps.queue === undefined ? {} : { queue: deps.queue }),
    reconcile: cronJobReconciler({
      cronJobs: informers.cronJobs,
      jobs: informers.jobs,
      writers: { cronJobs: writer({ group: 'batch', resource: 'cronjobs' }), jobs: writer({ group: 'batch', resource: 'jobs' }) },
      events: deps.events,
      clock: deps.clock,
      logger: deps.logger,
    }),
  });
  informers.cronJobs.onEvent((event) => loop.enqueue(event.key));
  watchDependents(informers.jobs, { ownerKind: 'CronJob', enqueue: (key) => loop.enqueue(key) });
  loop.enqueueAll(informers.cronJobs);
  return { stop: () => loop.stop() };
}
