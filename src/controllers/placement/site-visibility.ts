import { matchesSelector } from '../../apimachinery/index.js';
import { PLATFORM_TENANT } from '../../auth/principal.js';
import type { SiteRecord, VirtualSiteRecord } from './config-records.js';

/**
 * Whether a tenant may place objects on a site: its own sites, and the platform's
 * regional-edge sites (usable by every tenant). A customer-edge site is its tenant's alone.
 */
export function siteVisibleTo(site: SiteRecord, tenant: string): boolean {
  return site.tenant === tenant || (site.tenant === PLATFORM_TENANT && site.type === 'REGIONAL_EDGE');
}

/**
 * Whether a site object is where its type says: regional edges are the platform's, in
 * `svc-io-system`; customer edges are in their tenant's `system` namespace. Registration
 * only writes such sites; another (a store written by hand) is never selected by a
 * virtual site, and naming it directly is reported as a site of the wrong kind.
 */
function siteWellPlaced(site: SiteRecord): boolean {
  return site.type === 'REGIONAL_EDGE' ? site.tenant === PLATFORM_TENANT && site.namespace === 'svc-io-system' : site.namespace === 'system';
}

/**
 * Whether a virtual site selects a site: neither is disabled, the site is well placed, the types match, one of the
 * virtual site's selector expressions matches the site's labels, and the site is visible to
 * the virtual site's tenant. The platform's virtual sites (tenant svc-io) may select any
 * tenant's sites of their type; who sees which is decided per viewer with
 * {@link siteVisibleTo}.
 */
export function virtualSiteSelects(vsite: VirtualSiteRecord, site: SiteRecord): boolean {
  if (vsite.disabled || site.disabled || site.type !== vsite.siteType || !siteWellPlaced(site)) return false;
  if (vsite.tenant !== PLATFORM_TENANT && !siteVisibleTo(site, vsite.tenant)) return false;
  return vsite.selectors.some((selector) => matchesSelector(selector, site.labels));
}
