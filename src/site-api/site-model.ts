/**
 * The names every part of multi-site orchestration agrees on: site labels, the placement and
 * flavor annotations (seed), and how a pod names the site it runs on.
 *
 * Site names are unique across the platform (registration refuses a name another site
 * holds), so a site is identified by its name alone; its config object lives in the
 * owning tenant's `system` namespace (customer edge) or in `svc-io-system` (regional edge).
 */

export type SiteType = 'REGIONAL_EDGE' | 'CUSTOMER_EDGE';

/**
 * How a site runs pods, as its agent declares at registration: `simulated` (rows in a
 * simulator, for scale tests; the default) or `runc` (real containers). A runc site's pods
 * get the workload sidecar injected when they are bound (`api/sidecar-injection.ts`).
 */
export const SITE_RUNTIMES = ['simulated', 'runc'] as const;
export type SiteRuntime = (typeof SITE_RUNTIMES)[number];

/** Whether pods on a site of this runtime get the workload sidecar (undefined: an unknown site, none). */
export function runtimeRunsSidecars(runtime: SiteRuntime | undefined): boolean {
  return runtime === 'runc';
}

/** Site labels set by registration (PLATFORM-FACTS). */
export const SITE_NAME_LABEL = 'svc.io/siteName';
export const SITE_TYPE_LABEL = 'svc.io/siteType';
export const SITE_TYPE_LABEL_VALUE: Readonly<Record<SiteType, string>> = { REGIONAL_EDGE: 'svc-io-re', CUSTOMER_EDGE: 'svc-io-ce' };

/** Placement annotations on workloads and the other placed kinds (seed). */
export const SITES_ANNOTATION = 'svc.io/sites';
export const VIRTUAL_SITES_ANNOTATION = 'svc.io/virtual-sites';

/** Flavor annotations (seed): the pod's default, and one per container. */
export const FLAVOR_ANNOTATION = 'svc.io/workload-flavor';
export const CONTAINER_FLAVOR_ANNOTATION_PREFIX = 'svc.io/workload-flavor-';

/**
 * Objects the platform makes for one site (ReplicaSets, pods, PVCs, Jobs) carry the site's
 * name in this label (the same key as the site object's label), so `-l svc.io/siteName=x`
 * selects one site's share.
 * @alias SITE_NAME_LABEL, named for what it marks
 */
export const POD_SITE_LABEL = SITE_NAME_LABEL;

/** A workload's per-site status breakdown, JSON `{ "<site>": { …status counts… } }`, written by its controller. */
export const SITE_STATUS_ANNOTATION = 'svc.io/site-status';

/** The namespace a site's config object lives in. */
export function siteNamespaceOf(type: SiteType): 'system' | 'svc-io-system' {
  return type === 'REGIONAL_EDGE' ? 'svc-io-system' : 'system';
}
