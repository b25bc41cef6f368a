import type { SITE_STATES } from '../../config/kinds/site.js';

export type SiteState = (typeof SITE_STATES)[number];

/**
 * What a site's state allows: `new-work` (placed objects go there), `keep-work` (it keeps
 * what it runs but gets nothing new), `no-work` (placed objects leave it).
 */
export type SiteWork = 'new-work' | 'keep-work' | 'no-work';

/**
 * The rule: ONLINE sites, and sites with no state yet (not known to the site inventory),
 * accept new work. FAILED, UPGRADING and STANDBY sites keep their work: a site that stops
 * heartbeating must not have its workloads torn down and rebuilt when it returns (its pods
 * turn not-ready instead). PROVISIONING and WAITING_FOR_REGISTRATION sites have nothing yet
 * and get nothing until ONLINE. DECOMMISSIONING sites lose their work.
 */
export function siteWorkRule(state: SiteState | undefined): SiteWork {
  if (state === undefined) return 'new-work';
  switch (state) {
    case 'ONLINE':
      return 'new-work';
    case 'FAILED':
    case 'UPGRADING':
    case 'STANDBY':
    case 'PROVISIONING':
    case 'WAITING_FOR_REGISTRATION':
      return 'keep-work';
    case 'DECOMMISSIONING':
      return 'no-work';
  }
}
