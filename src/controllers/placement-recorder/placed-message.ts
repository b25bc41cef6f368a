import type { PlacedSite } from '../placement/placed-site.js';

/** Event reason for a placement decision of a non-workload object (kube has no such reason; named like `Scheduled`). */
export const PLACED_REASON = 'Placed';

/** Sites named in full in a `Placed` message; beyond, a count (event messages are short). */
const NAMED_SITES_LIMIT = 20;

/** The sites' names, sorted and de-duplicated: what is compared to tell a change. */
export function placedSiteNames(sites: readonly PlacedSite[]): string[] {
  return [...new Set(sites.map((s) => s.name))].sort();
}

/**
 * The `Placed` event message: "placed on site a", "placed on sites a, b", "placed on no site",
 * or past {@link NAMED_SITES_LIMIT} sites "placed on 1200 sites: a, b, … and 1180 more". Pure.
 */
export function placedMessage(names: readonly string[]): string {
  if (names.length === 0) return 'placed on no site';
  if (names.length === 1) return `placed on site ${names[0] ?? ''}`;
  if (names.length <= NAMED_SITES_LIMIT) return `placed on sites ${names.join(', ')}`;
  return `placed on ${names.length} sites: ${names.slice(0, NAMED_SITES_LIMIT).join(', ')} and ${names.length - NAMED_SITES_LIMIT} more`;
}
