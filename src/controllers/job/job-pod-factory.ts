import type { PlacedSite } from '../placement/placed-site.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';
import { controllerRef } from '../runtime/owner-references.js';

/**
 * A pod of `job` for `site`: named `<job>-<random>` as kube's job pods, from the site's
 * template, whose labels carry `controller-uid` and `job-name` (the Job's generated
 * selector put them in its template) and `svc.io/siteName`; the Job is its controller.
 */
export function jobPod(job: KubeObject, site: PlacedSite, template: PodTemplateSpec): KubeObject {
  const copy = cloneObject(template);
  const annotations = copy.metadata?.annotations ?? undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${job.metadata.name ?? ''}-`,
      labels: { ...(copy.metadata?.labels ?? {}), [POD_SITE_LABEL]: site.name },
      ...(annotations == null || Object.keys(annotations).length === 0 ? {} : { annotations }),
      ownerReferences: [controllerRef(job)],
    },
    spec: copy.spec ?? {},
  };
}
