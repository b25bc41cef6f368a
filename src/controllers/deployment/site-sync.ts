import type { KubeObject } from '../../apimachinery/object.js';
import { mapLimit } from '../runtime/map-limit.js';
import { podStatusOf } from '../runtime/pod-state.js';
import { conditionOf, newCondition, REASONS, setCondition } from './deployment-conditions.js';
import { type SiteShare } from './deployment-status.js';
import type { DeploymentSync } from './deployment-sync.js';
import { syncNewReplicaSet } from './replica-set-writes.js';
import { rsViewOf } from './replica-set-view.js';
import { applyRolloutPlan, type SiteRolloutState } from './rollout-writes.js';
import { drainSite } from './site-drain.js';
import type { SiteGroup } from './site-groups.js';
import { memoHolds } from './site-memos.js';
import { planSiteRollout } from './site-rollout.js';
import { offlineSiteSteps } from './offline-site-rollout.js';
import { shareOf } from './site-share.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

/** Sites of one Deployment synced at once (each site's writes are independent of the others'). */
export const SITES_AT_ONCE = 32;

/**
 * Syncs every site of the Deployment, {@link SITES_AT_ONCE} at a time, and adds their shares
 * to the sync in site order: a Deployment being deleted only counts its sites; a placed site
 * takes one rollout step ({@link syncPlacedSite}); a site it left drains (drainSite). Offline
 * sites' shares carry since when. The
 * first failure rejects once the sites in flight are done.
 */
export async function syncSites(sync: DeploymentSync): Promise<void> {
  const synced = await mapLimit(sync.groups, SITES_AT_ONCE, async (group): Promise<SiteShare | undefined> => {
    if (sync.deleting) return shareOf(group, group.newRS, group.oldRSs);
    if (group.placed !== undefined) return syncPlacedSite(sync, group);
    const drained = await drainSite(sync.target, group, sync.maxReplicas);
    sync.remaining.push(...drained.kept);
    return drained.kept.length > 0 ? drained.share : undefined;
  });
  for (const share of synced) {
    if (share === undefined) continue;
    const offlineSince = sync.offline.get(share.site);
    sync.shares.push(offlineSince === undefined ? share : { ...share, offlineSince });
  }
}

/**
 * One placed site (kube's rolloutRolling / rolloutRecreate / sync, for the site): unless
 * nothing it reads changed since a sync that wrote nothing, brings the new ReplicaSet's
 * annotations up to date, plans one step (planSiteRollout) and makes its writes. A site
 * where nothing was written is remembered (SiteMemos).
 */
async function syncPlacedSite(sync: DeploymentSync, group: SiteGroup): Promise<SiteShare> {
  const rss = group.newRS === undefined ? group.oldRSs : [group.newRS, ...group.oldRSs];
  const unchanged = unchangedSiteShare(sync, group.site, rss);
  if (unchanged !== undefined) return unchanged;
  const newRS = group.newRS === undefined ? undefined : await syncExistingNewReplicaSet(sync, group.newRS);
  const state: SiteRolloutState = { newRS, olds: new Map(group.oldRSs.map((rs) => [rs.metadata.name ?? '', rs])), views: new Map() };
  const planned = planSiteRollout({
    strategy: sync.strategy,
    replicas: sync.replicas,
    paused: sync.spec.paused === true,
    ...(sync.spec.revisionHistoryLimit === undefined ? {} : { revisionHistoryLimit: sync.spec.revisionHistoryLimit }),
    ...(newRS === undefined ? {} : { newRS: rsViewOf(newRS) }),
    oldRSs: group.oldRSs.map(rsViewOf),
    oldPodsRunning: oldPodsRunning(sync, group),
  });
  // An offline site takes only the steps that take no pod away; the rest waits for it to return.
  const plan = sync.offline.has(group.site) ? offlineSiteSteps(planned, rss.map(rsViewOf)) : planned;
  if (sync.spec.paused !== true) sync.rollout = true;
  await applyRolloutPlan(sync, group.site, state, plan);
  const share = shareOf(group, state.newRS, [...state.olds.values()], state.views);
  // Steps deferred on an offline site are no reason to remember it as settled.
  if (planned.length === 0 && state.newRS === group.newRS) sync.siteMemos.set(group.site, { generation: sync.generation, revision: sync.revision, rss, share });
  else sync.siteMemos.delete(group.site);
  sync.remaining.push(...(state.newRS === undefined ? [] : [state.newRS]), ...state.olds.values());
  return share;
}

/** The site's share from its memo when the memo still holds (never for Recreate, which waits on pods), else undefined. */
function unchangedSiteShare(sync: DeploymentSync, site: string, rss: readonly KubeObject[]): SiteShare | undefined {
  const memo = sync.siteMemos.get(site);
  if (!memoHolds(memo, sync.generation, sync.revision, rss) || sync.strategy.type === 'Recreate') return undefined;
  if (sync.spec.paused !== true) sync.rollout = true;
  sync.remaining.push(...rss);
  return memo.share;
}

/**
 * kube's getNewReplicaSet, existing branch: the site's new ReplicaSet gets the revision and
 * the Deployment's annotations; without a Progressing condition yet (and with a progress
 * deadline), Progressing True, FoundNewReplicaSet.
 */
async function syncExistingNewReplicaSet(sync: DeploymentSync, rs: KubeObject): Promise<KubeObject> {
  const newRS = await syncNewReplicaSet(sync.target, rs, sync.revision);
  if (conditionOf(sync.conditions, 'Progressing') === undefined && sync.spec.progressDeadlineSeconds !== undefined) {
    sync.conditions = setCondition(sync.conditions, newCondition('Progressing', 'True', REASONS.foundNewRS, `Found new replica set "${newRS.metadata.name ?? ''}"`, metav1Time(sync.deps.context.clock.now())));
  }
  return newRS;
}

/** kube's oldPodsRunning, for Recreate (false otherwise): an old ReplicaSet still counts pods, or has a pod not finished. */
function oldPodsRunning(sync: DeploymentSync, group: SiteGroup): boolean {
  if (sync.strategy.type !== 'Recreate') return false;
  const { pods } = sync.deps.context.informers;
  return group.oldRSs.some((rs) => rsViewOf(rs).statusReplicas > 0 || pods.dependentsOf(rs.metadata.uid ?? '').some((p) => !['Failed', 'Succeeded'].includes(podStatusOf(p).phase ?? '')));
}
