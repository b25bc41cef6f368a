import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { readSiteStatus } from '../controller-kit/site-status.js';
import { offlineSites, type SiteShare } from './deployment-status.js';
import { DEPLOYMENT_CONTROLLER } from './replica-set-writes.js';

interface OfflineTransition {
  readonly site: string;
  readonly since: string;
}

/**
 * Which sites of a Deployment went offline and which came back since its last status write:
 * the `offlineSince` of the `svc.io/site-status` breakdown it carries against the sites' shares
 * now. Pure; a site the breakdown left out (beyond its size) counts as reachable before.
 */
function offlineTransitions(deployment: KubeObject, shares: readonly SiteShare[]): { wentOffline: OfflineTransition[]; cameBack: OfflineTransition[] } {
  const before = readSiteStatus<{ offlineSince?: unknown }>(deployment);
  const now = offlineSites(shares);
  const offlineNow = new Set(now.map((o) => o.site));
  const wentOffline = now.filter((o) => typeof before[o.site]?.offlineSince !== 'string');
  const present = new Set(shares.map((s) => s.site));
  const cameBack = Object.entries(before).flatMap(([site, counts]) =>
    typeof counts?.offlineSince === 'string' && !offlineNow.has(site) && present.has(site) ? [{ site, since: counts.offlineSince }] : [],
  );
  return { wentOffline, cameBack };
}

/**
 * The Deployment's events for its offline sites (what `kubectl describe deploy` shows beside
 * the `SitesOffline` condition): Warning `SiteOffline` when a site goes offline (or the
 * Deployment is made while it is), Normal `SiteOnline` when it is back.
 */
export function recordOfflineEvents(events: EventRecorder, cluster: ClusterRef, deployment: KubeObject, shares: readonly SiteShare[]): void {
  const { wentOffline, cameBack } = offlineTransitions(deployment, shares);
  for (const { site, since } of wentOffline) {
    const message = `Site ${site} is offline since ${since} (its Nodes went Unknown): its replicas are deferred until it returns (new pods Pending, running pods kept); Available counts the reachable sites`;
    events.record(cluster, deployment, 'Warning', 'SiteOffline', message, DEPLOYMENT_CONTROLLER);
  }
  for (const { site, since } of cameBack) {
    events.record(cluster, deployment, 'Normal', 'SiteOnline', `Site ${site} is reachable again (offline since ${since})`, DEPLOYMENT_CONTROLLER);
  }
}
