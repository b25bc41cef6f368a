import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import type { DeploymentSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import { semanticEqual } from '../../vk8s/kinds/workload-common.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ControllerContext } from '../manager/controller-context.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Expectations } from '../runtime/expectations.js';
import { mapLimit } from '../runtime/map-limit.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { isOwnedBy, podStatusOf } from '../runtime/pod-state.js';
import { REVISION_ANNOTATION } from './deployment-annotations.js';
import { conditionOf, newCondition, REASONS, setCondition, type DeploymentCondition } from './deployment-conditions.js';
import { deploymentStatus, rfc3339, SITE_STATUS_OMITTED_ANNOTATION, siteStatusJson, type DeploymentStatusView, type SiteShare } from './deployment-status.js';
import { primaryReplicaSets } from './primary-replica-sets.js';
import { createReplicaSet, deleteReplicaSet, DEPLOYMENT_CONTROLLER, scaleReplicaSet, setDeploymentController, syncNewReplicaSet, type WriteTarget } from './replica-set-writes.js';
import { rsViewOf, type RsView } from './replica-set-view.js';
import { maxSurgeOf, type RolloutStrategy } from './rollout-math.js';
import { currentRevision, groupBySite, type SiteGroup } from './site-groups.js';
import { planSiteRollout } from './site-rollout.js';

export const DEPLOYMENTS = { group: 'apps', resource: 'deployments' } as const;
/** Sites of one Deployment synced at once (each site's writes are independent of the others'). */
const SITES_AT_ONCE = 32;

/** A site whose last sync wrote nothing, and its inputs. */
interface SiteMemo {
  /** `<uid>/<generation>` of the Deployment. */
  readonly generation: string;
  readonly revision: number;
  readonly rss: readonly KubeObject[];
  readonly share: SiteShare;
}

function sameObjects(a: readonly KubeObject[], b: readonly KubeObject[]): boolean {
  return a.length === b.length && a.every((object, i) => object === b[i]);
}

/** What one sync learned, for the status. */
interface SyncOutcome {
  readonly shares: SiteShare[];
  rollout: boolean;
  conditions: DeploymentCondition[];
}

/**
 * One sync of a Deployment (kube's syncDeployment, per site): the placed sites each get one
 * ReplicaSet per template revision and one step of the rollout (see planSiteRollout); sites
 * the Deployment left have their ReplicaSets scaled to 0, then deleted once empty; the status
 * (summed over sites), the revision annotation and the `svc.io/site-status` breakdown are
 * written through `/status`. Reads come from the informers; ReplicaSet creations are
 * expectations, so a sync never runs on a cache that has not seen its own creations.
 */
export function deploymentReconciler(context: ControllerContext, expectations: Expectations): (key: ObjectKey, queueKey: string) => Promise<ReconcileResult | void> {
  const { informers, placement, events, clock } = context;
  const deployments = context.storage.storeFor(DEPLOYMENTS) as GenericStore;
  const replicaSets = context.storage.storeFor({ group: 'apps', resource: 'replicasets' }) as GenericStore;

  /**
   * Per Deployment and site, the last sync that had nothing to do, and what it read: while the
   * Deployment's generation, the revision and the site's ReplicaSet objects (the informer's,
   * replaced on every change) are the same, the site's sync would decide the same — so a
   * Deployment on thousands of sites only works on the sites whose ReplicaSets changed.
   */
  const memos = new Map<string, Map<string, SiteMemo>>();

  return async (key, queueKey) => {
    const started = performance.now();
    const deployment = informers.deployments.get(key.cluster, key.name);
    if (deployment === undefined) {
      memos.delete(queueKey);
      return expectations.forget(queueKey);
    }
    if (!expectations.satisfied(queueKey)) return { requeueAfterMs: 30_000 };
    const uid = deployment.metadata.uid;
    const owned = informers.replicaSets.dependentsOf(uid ?? '').filter((rs) => isOwnedBy(rs, uid));
    const spec = specOf<DeploymentSpec>(deployment);
    const replicas = spec.replicas ?? 1;
    const strategy: RolloutStrategy = spec.strategy?.type === 'Recreate' ? { type: 'Recreate' } : { type: 'RollingUpdate', ...(spec.strategy?.rollingUpdate ?? {}) };
    const maxReplicas = replicas + maxSurgeOf(strategy, replicas);
    const scope: RequestScope = { cluster: key.cluster, dryRun: false, fieldManager: DEPLOYMENT_CONTROLLER };
    const target: WriteTarget = { replicaSets, scope, deployment, events };
    const previous = statusOf<DeploymentStatusView>(deployment);
    const deleting = deployment.metadata.deletionTimestamp !== undefined;
    const sites = deleting ? [] : placement.sitesFor(DEPLOYMENTS, key.cluster, deployment);
    const groups = groupBySite(owned, sites, spec.template);
    const generation = `${uid ?? ''}/${deployment.metadata.generation ?? 0}`;
    const siteMemos = memos.get(queueKey) ?? new Map<string, SiteMemo>();
    memos.set(queueKey, siteMemos);
    if (siteMemos.size > groups.length) {
      const present = new Set(groups.map((g) => g.site));
      for (const site of siteMemos.keys()) if (!present.has(site)) siteMemos.delete(site);
    }
    const revision = currentRevision(owned, spec.template);
    const outcome: SyncOutcome = { shares: [], rollout: false, conditions: [...(previous.conditions ?? [])] };
    if (!deleting) outcome.conditions = pausedConditions(outcome.conditions, spec, clock.now());

    /** The ReplicaSets as this sync leaves them (for the choice of the controlled one per revision). */
    const remaining: KubeObject[] = [];
    const synced = await mapLimit(groups, SITES_AT_ONCE, async (group): Promise<SiteShare | undefined> => {
      if (deleting) return share(group, group.newRS, group.oldRSs);
      if (group.placed !== undefined) return syncSite(group);
      const drained = await drainSite(target, group, maxReplicas);
      remaining.push(...drained.kept);
      return drained.kept.length > 0 ? drained.share : undefined;
    });
    outcome.shares.push(...synced.filter((s): s is SiteShare => s !== undefined));
    if (!deleting) {
      const primaries = primaryReplicaSets(remaining, new Set(sites.map((s) => s.name)));
      const misflagged = remaining.filter((rs) => primaries.has(rs) !== (rs.metadata.ownerReferences?.find((r) => r.uid === uid)?.controller === true));
      await mapLimit(misflagged, SITES_AT_ONCE, (rs) => setDeploymentController(target, rs, primaries.has(rs)));
    }

    const { status, requeueAfterMs } = deploymentStatus({
      name: key.name,
      generation: deployment.metadata.generation ?? 1,
      replicas,
      strategy,
      ...(spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === 2147483647 ? {} : { progressDeadlineSeconds: spec.progressDeadlineSeconds }),
      shares: outcome.shares,
      previous,
      conditions: outcome.conditions,
      rollout: outcome.rollout,
      ...replicaFailure(owned),
      ...(previous.collisionCount === undefined ? {} : { collisionCount: previous.collisionCount }),
      now: clock.now(),
    });
    const breakdown = siteStatusJson(outcome.shares, replicas);
    const annotations: Record<string, string | undefined> = { [SITE_STATUS_ANNOTATION]: breakdown.json, [SITE_STATUS_OMITTED_ANNOTATION]: breakdown.omitted === 0 ? undefined : String(breakdown.omitted) };
    if (sites.length > 0) annotations[REVISION_ANNOTATION] = String(revision);
    await writeStatus(deployments, scope, deployment, status, annotations);
    context.logger.debug({ controller: 'deployment', deployment: key.name, sites: groups.length, ms: Math.round(performance.now() - started) }, 'deployment synced');
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };

    async function syncSite(group: SiteGroup): Promise<SiteShare> {
      const site = group.site;
      const rss = group.newRS === undefined ? group.oldRSs : [group.newRS, ...group.oldRSs];
      const memo = siteMemos.get(site);
      if (memo !== undefined && memo.generation === generation && memo.revision === revision && sameObjects(memo.rss, rss) && strategy.type !== 'Recreate') {
        if (spec.paused !== true) outcome.rollout = true;
        remaining.push(...rss);
        return memo.share;
      }
      let newRS = group.newRS === undefined ? undefined : await syncNewReplicaSet(target, group.newRS, revision);
      if (newRS !== undefined && conditionOf(outcome.conditions, 'Progressing') === undefined && spec.progressDeadlineSeconds !== undefined) {
        outcome.conditions = setCondition(outcome.conditions, newCondition('Progressing', 'True', REASONS.foundNewRS, `Found new replica set "${newRS.metadata.name ?? ''}"`, rfc3339(clock.now())));
      }
      const olds = new Map(group.oldRSs.map((rs) => [rs.metadata.name ?? '', rs]));
      const oldPodsRunning = strategy.type === 'Recreate' && group.oldRSs.some((rs) => rsViewOf(rs).statusReplicas > 0 || informers.pods.dependentsOf(rs.metadata.uid ?? '').some((p) => !['Failed', 'Succeeded'].includes(podStatusOf(p).phase ?? '')));
      const plan = planSiteRollout({
        strategy,
        replicas,
        paused: spec.paused === true,
        ...(spec.revisionHistoryLimit === undefined ? {} : { revisionHistoryLimit: spec.revisionHistoryLimit }),
        ...(newRS === undefined ? {} : { newRS: rsViewOf(newRS) }),
        oldRSs: group.oldRSs.map(rsViewOf),
        oldPodsRunning,
      });
      if (spec.paused !== true) outcome.rollout = true;
      const views = new Map<string, RsView>();
      for (const action of plan) {
        switch (action.type) {
          case 'create': {
            expectations.expectCreations(queueKey, 1);
            const created = await createReplicaSet(target, site, action.replicas, maxReplicas, revision, previous.collisionCount, false).catch((error: unknown) => {
              expectations.creationObserved(queueKey);
              throw error;
            });
            if (created === 'collision' || created.existed) expectations.creationObserved(queueKey);
            if (created === 'collision') {
              await bumpCollisionCount(deployments, scope, target.deployment);
              throw new Error(`replica set name of deployment ${key.name} on site ${site} is taken: collisionCount raised`);
            }
            newRS = created.object;
            if (spec.progressDeadlineSeconds !== undefined) {
              outcome.conditions = setCondition(outcome.conditions, newCondition('Progressing', 'True', REASONS.newRSCreated, `Created new replica set "${created.object.metadata.name ?? ''}"`, rfc3339(clock.now())));
            }
            break;
          }
          case 'scale': {
            const rs = action.name === newRS?.metadata.name ? newRS : olds.get(action.name);
            if (rs === undefined) break;
            const scaled = await scaleReplicaSet(target, rs, action.replicas, maxReplicas);
            if (rs === newRS) newRS = scaled;
            else views.set(action.name, { ...rsViewOf(rs), specReplicas: action.replicas });
            break;
          }
          case 'delete': {
            const rs = olds.get(action.name);
            if (rs !== undefined) await deleteReplicaSet(target, rs);
            olds.delete(action.name);
            break;
          }
        }
      }
      const result = share(group, newRS, [...olds.values()], views);
      if (plan.length === 0 && newRS === group.newRS) siteMemos.set(site, { generation, revision, rss, share: result });
      else siteMemos.delete(site);
      remaining.push(...(newRS === undefined ? [] : [newRS]), ...olds.values());
      return result;
    }
  };
}

/** A site the Deployment left: scale its ReplicaSets to 0, delete them once their pods are gone. */
async function drainSite(target: WriteTarget, group: SiteGroup, maxReplicas: number): Promise<{ share: SiteShare; kept: KubeObject[] }> {
  const kept: KubeObject[] = [];
  const views = new Map<string, RsView>();
  for (const rs of group.oldRSs) {
    const view = rsViewOf(rs);
    if (view.deleting) continue;
    if (view.specReplicas > 0) {
      await scaleReplicaSet(target, rs, 0, maxReplicas);
      views.set(view.name, { ...view, specReplicas: 0 });
      kept.push(rs);
    } else if (view.statusReplicas === 0 && view.observedGeneration >= view.generation) {
      await deleteReplicaSet(target, rs);
    } else {
      kept.push(rs);
    }
  }
  return { share: share(group, undefined, kept, views), kept };
}

function share(group: SiteGroup, newRS: KubeObject | undefined, oldRSs: readonly KubeObject[], views: ReadonlyMap<string, RsView> = new Map()): SiteShare {
  const view = (rs: KubeObject): RsView => views.get(rs.metadata.name ?? '') ?? rsViewOf(rs);
  return { site: group.site, placed: group.placed !== undefined, ...(newRS === undefined ? {} : { newRS: view(newRS) }), oldRSs: oldRSs.map(view) };
}

/** kube's checkPausedConditions: Progressing Unknown while paused, and once resumed. */
function pausedConditions(conditions: DeploymentCondition[], spec: DeploymentSpec, now: Date): DeploymentCondition[] {
  if (spec.progressDeadlineSeconds === undefined) return conditions;
  const paused = conditionOf(conditions, 'Progressing')?.reason === REASONS.paused;
  if (spec.paused === true && !paused) return setCondition(conditions, newCondition('Progressing', 'Unknown', REASONS.paused, 'Deployment is paused', rfc3339(now)));
  if (spec.paused !== true && paused) return setCondition(conditions, newCondition('Progressing', 'Unknown', REASONS.resumed, 'Deployment is resumed', rfc3339(now)));
  return conditions;
}

/** kube's getReplicaFailures: a ReplicaFailure condition of a ReplicaSet becomes the Deployment's. */
function replicaFailure(owned: readonly KubeObject[]): { replicaFailure?: { reason: string; message: string } } {
  for (const rs of owned) {
    const failure = statusOf<{ conditions?: DeploymentCondition[] }>(rs).conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
    if (failure !== undefined) return { replicaFailure: { reason: failure.reason ?? '', message: failure.message ?? '' } };
  }
  return {};
}

/** Writes status and annotations (an undefined value removes one) through /status when either changed. */
async function writeStatus(deployments: GenericStore, scope: RequestScope, deployment: KubeObject, status: DeploymentStatusView, annotations: Record<string, string | undefined>): Promise<void> {
  const current = deployment.metadata.annotations ?? {};
  const annotationsChanged = Object.entries(annotations).some(([k, v]) => current[k] !== v);
  const merged = (live: Record<string, string>): Record<string, string> => {
    const next = { ...live };
    for (const [k, v] of Object.entries(annotations)) {
      if (v === undefined) delete next[k];
      else next[k] = v;
    }
    return next;
  };
  if (!annotationsChanged && semanticEqual(status, deployment.status)) return;
  await deployments.update(
    scope,
    deployment.metadata.name ?? '',
    (live) => {
      if (live.metadata.uid !== deployment.metadata.uid) return live;
      live.metadata.annotations = merged(live.metadata.annotations ?? {});
      live.status = { ...status };
      return live;
    },
    { subresource: 'status', retryOnConflict: true },
  );
}

async function bumpCollisionCount(deployments: GenericStore, scope: RequestScope, deployment: KubeObject): Promise<void> {
  await deployments.update(
    scope,
    deployment.metadata.name ?? '',
    (live) => {
      const status = statusOf<DeploymentStatusView>(live);
      live.status = { ...status, collisionCount: (status.collisionCount ?? 0) + 1 };
      return live;
    },
    { subresource: 'status', retryOnConflict: true },
  );
}
