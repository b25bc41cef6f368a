import { CONTAINER_FLAVOR_ANNOTATION_PREFIX, FLAVOR_ANNOTATION, SITES_ANNOTATION, VIRTUAL_SITES_ANNOTATION } from '../../site-api/site-model.js';
import { specOf, type CronJobSpec } from '../../vk8s/kinds/workload-types.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';
import { controllerRef } from '../runtime/owner-references.js';
import { jobNameFor } from './cron-times.js';

/** Whether an annotation decides where or how a workload runs (placement and flavors), so a CronJob's Jobs inherit it. */
function isPlatformAnnotation(key: string): boolean {
  return key === SITES_ANNOTATION || key === VIRTUAL_SITES_ANNOTATION || key === FLAVOR_ANNOTATION || key.startsWith(CONTAINER_FLAVOR_ANNOTATION_PREFIX);
}

/**
 * kube's getJobFromTemplate: the Job for the run at `scheduled`, named
 * `<cronjob>-<minutes since the epoch>` (the name is the lock against starting one run twice),
 * with the job template's labels, annotations and spec, and the CronJob as controller. It
 * also carries the CronJob's placement and flavor annotations (`svc.io/sites`,
 * `svc.io/virtual-sites`, `svc.io/workload-flavor[-<container>]`) unless its template sets
 * them, so its pods land where the CronJob is placed.
 */
export function jobFromCronJob(cronJob: KubeObject, scheduled: Date): KubeObject {
  const template = specOf<CronJobSpec>(cronJob).jobTemplate ?? {};
  const inherited = Object.fromEntries(Object.entries(cronJob.metadata.annotations ?? {}).filter(([key]) => isPlatformAnnotation(key)));
  const annotations = { ...inherited, ...(template.metadata?.annotations ?? {}) };
  const labels = template.metadata?.labels ?? {};
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: jobNameFor(cronJob.metadata.name ?? '', scheduled),
      ...(Object.keys(labels).length === 0 ? {} : { labels: { ...labels } }),
      ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
      ownerReferences: [controllerRef(cronJob)],
    },
    spec: cloneObject(template.spec ?? {}),
  };
}
