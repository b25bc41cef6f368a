import type { KubeObject } from '../../apimachinery/object.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';

/** The site a pod (or PVC, or any per-site object) was made for: its `svc.io/siteName` label. */
export function siteOf(object: KubeObject): string | undefined {
  return object.metadata.labels?.[POD_SITE_LABEL];
}
