import { POD_SITE_LABEL } from '../site-api/site-model.js';
import type { KubeObject } from '../apimachinery/object.js';

/**
 * Pure: the site a pod is bound to — its `svc.io/siteName` label once the scheduler has set
 * `spec.nodeName` — or undefined while it is not bound to one.
 */
export function siteOfPod(pod: KubeObject): string | undefined {
  const nodeName = (pod['spec'] as { nodeName?: unknown } | undefined)?.nodeName;
  const site = pod.metadata.labels?.[POD_SITE_LABEL];
  return typeof nodeName === 'string' && nodeName !== '' && site !== undefined && site !== '' ? site : undefined;
}

/** What a credential says about its pod; checked against the pod object as it is now. */
export interface PodClaim {
  readonly pod: string;
  readonly uid: string;
  readonly site: string;
}

/**
 * Pure: why `pod` (read now) is not the pod `claim` was made for — recreated under the same
 * name (another uid), not bound, or bound to another site — or undefined when it is.
 */
export function podClaimProblem(pod: KubeObject, claim: PodClaim): string | undefined {
  if (pod.metadata.uid !== claim.uid) return `pod ${claim.pod} is not the pod the credential was issued for (uid ${pod.metadata.uid ?? '<none>'}, expected ${claim.uid})`;
  const site = siteOfPod(pod);
  if (site === undefined) return `pod ${claim.pod} is not bound to a site`;
  if (site !== claim.site) return `pod ${claim.pod} is bound to site ${site}, not ${claim.site}`;
  return undefined;
}
