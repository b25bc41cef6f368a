import { siteOfflineSince } from '../controller-kit/site-offline.js';
import { startCronJobController } from '../cronjob/cronjob-controller.js';
import { startEndpointsController } from '../endpoints/endpoints-controller.js';
import { startJobController } from '../job/job-controller.js';
import { startStatefulSetController } from '../statefulset/statefulset-controller.js';
import { startVolumeBinderController } from '../volume-binder/volume-binder-controller.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import type { ControllerContext, ControllerStarter } from './controller-context.js';
import { termInformer, termPlacement } from './term-scoped.js';

/** What every one of these controllers takes from the term. */
function common(context: ControllerContext, name: string): { storage: ControllerContext['storage']; events: ControllerContext['events']; logger: ControllerContext['logger']; workers?: number } {
  return { storage: context.storage, events: context.events, logger: context.logger.child({ controller: name }), ...(context.workers === undefined ? {} : { workers: context.workers }) };
}

export function statefulSetController(): ControllerStarter {
  return {
    name: 'statefulset-controller',
    start: (c) =>
      startStatefulSetController({
        ...common(c, 'statefulset-controller'),
        informers: { statefulSets: termInformer(c, c.informers.statefulSets), pods: termInformer(c, c.informers.pods), persistentVolumeClaims: termInformer(c, c.informers.persistentVolumeClaims) },
        placement: termPlacement(c),
        podTemplateFor: c.podTemplateFor,
        clock: c.clock,
        siteOffline: (site) => siteOfflineSince(c.sites.nodesOf(site)) !== undefined,
      }),
  };
}

export function jobController(): ControllerStarter {
  return {
    name: 'job-controller',
    start: (c) =>
      startJobController({
        ...common(c, 'job-controller'),
        informers: { jobs: termInformer(c, c.informers.jobs), pods: termInformer(c, c.informers.pods) },
        placement: termPlacement(c),
        podTemplateFor: c.podTemplateFor,
        clock: c.clock,
      }),
  };
}

/** `queue`: the CronJob controller's timers (tests put them on their clock). */
export function cronJobController(queue?: WorkQueueOptions): ControllerStarter {
  return {
    name: 'cronjob-controller',
    start: (c) =>
      startCronJobController({
        ...common(c, 'cronjob-controller'),
        informers: { cronJobs: termInformer(c, c.informers.cronJobs), jobs: termInformer(c, c.informers.jobs) },
        clock: c.clock,
        ...(queue === undefined ? {} : { queue }),
      }),
  };
}

export function endpointsController(): ControllerStarter {
  return {
    name: 'endpoints-controller',
    start: (c) =>
      startEndpointsController({
        ...common(c, 'endpoints-controller'),
        informers: { services: termInformer(c, c.informers.services), pods: termInformer(c, c.informers.pods), endpoints: termInformer(c, c.informers.endpoints) },
      }),
  };
}

export function volumeBinderController(): ControllerStarter {
  return {
    name: 'volume-binder',
    start: (c) =>
      startVolumeBinderController({
        ...common(c, 'volume-binder'),
        informers: { persistentVolumeClaims: termInformer(c, c.informers.persistentVolumeClaims), persistentVolumes: termInformer(c, c.informers.persistentVolumes) },
        placement: termPlacement(c),
      }),
  };
}
