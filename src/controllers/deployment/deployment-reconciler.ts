import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { SITE_STATUS_ANNOTATION } from '../../sites/site-model.js';
import type { DeploymentSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import { semanticEqual } from '../../vk8s/kinds/workload-common.js';
import type { KubeObject } from '../../vk8s/object.js';
import type { ControllerContext } from '../manager/controller-context.js';
import type { ReconcileResult } from '../run-workers.js';
import type { Expectations } from '../runtime/expectations.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { isControlledBy, podStatusOf } from '../runtime/pod-state.js';
import { PLATFORM_REVISION_ANNOTATION, REVISION_ANNOTATION } from './deployment-annotations.js';
import { conditionOf, newCondition, REASONS, setCondition, type DeploymentCondition } from './deployment-conditions.js';
import { deploymentStatus, rfc3339, siteStatusJson, type DeploymentStatusView, type SiteShare } from './deployment-status.js';
import { createReplicaSet, deleteReplicaSet, DEPLOYMENT_CONTROLLER, markReplicaSet, scaleReplicaSet, syncNewReplicaSet, type WriteTarget } from './replica-set-writes.js';
import { rsViewOf, type RsView } from './replica-set-view.js';
import { RevisionHolders } from './revision-holders.js';
import { maxSurgeOf, type RolloutStrategy } from './rollout-math.js';
import { currentRevision, groupBySite, type SiteGroup } from './site-groups.js';
import { planSiteRollout } from './site-rollout.js';

export const DEPLOYMENTS = { group: 'apps', resource: 'deployments' } as const;

/** What one sync learned, for the status. */
interface SyncOutcome {
  readonly shares: SiteShare[];
  rollout: boolean;
  conditions: DeploymentCondition[];
}

/**
 * One sync of a Deployment (kube's syncDeployment, per site): the placed sites each get one
 * ReplicaSet per template revision and one step of the rollout (see planSiteRollout); sites
 * the Deployment left have their ReplicaSets scaled to 0, then deleted once empty; one
 * ReplicaSet per revision carries kube's revision annotation (see RevisionHolders); the status
 * (summed over sites), the revision annotation and the `svc.io/site-status` breakdown are
 * written through `/status`. Reads come from the informers; ReplicaSet creations are
 * expectations, so a sync never runs on a cache that has not seen its own creations.
 */
export function deploymentReconciler(context: ControllerContext, expectations: Expectations): (key: ObjectKey, queueKey: string) => Promise<ReconcileResult | void> {
  const { informers, placement, events, clock } = context;
  const deployments = context.storage.storeFor(DEPLOYMENTS) as GenericStore;
  const replicaSets = context.storage.storeFor({ group: 'apps', resource: 'replicasets' }) as GenericStore;

  return async (key, queueKey) => {
    const deployment = informers.deployments.get(key.cluster, key.name);
    if (deployment === undefined) return expectations.forget(queueKey);
    if (!expectations.satisfied(queueKey)) return { requeueAfterMs: 30_000 };
    const uid = deployment.metadata.uid;
    const owned = informers.replicaSets.dependentsOf(uid ?? '').filter((rs) => isControlledBy(rs, uid));
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
    const revision = currentRevision(owned, spec.template);
    // The new ReplicaSets of placed sites take the current revision in this sync.
    const renewed = new Set(groups.flatMap((g) => (g.placed !== undefined && g.newRS !== undefined ? [g.newRS.metadata.name ?? ''] : [])));
    const holders = new RevisionHolders(owned, (rs) => (renewed.has(rs.metadata.name ?? '') ? Math.max(revision, rsViewOf(rs).revision) : rsViewOf(rs).revision));
    const outcome: SyncOutcome = { shares: [], rollout: false, conditions: [...(previous.conditions ?? [])] };
    if (!deleting) outcome.conditions = pausedConditions(outcome.conditions, spec, clock.now());

    for (const group of groups) {
      if (deleting) outcome.shares.push(share(group, group.newRS, group.oldRSs));
      else if (group.placed === undefined) {
        const drained = await drainSite(target, group, maxReplicas, holders);
        if (drained.oldRSs.length > 0) outcome.shares.push(drained);
      }
      else outcome.shares.push(await syncSite(group));
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
    const annotations: Record<string, string> = { [SITE_STATUS_ANNOTATION]: siteStatusJson(outcome.shares) };
    if (sites.length > 0) annotations[REVISION_ANNOTATION] = String(revision);
    await writeStatus(deployments, scope, deployment, status, annotations, [PLATFORM_REVISION_ANNOTATION]);
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };

    async function syncSite(group: SiteGroup): Promise<SiteShare> {
      const site = group.site;
      let newRS = group.newRS === undefined ? undefined : await syncNewReplicaSet(target, group.newRS, revision, holders.holds(group.newRS.metadata.name ?? ''));
      if (newRS !== undefined && conditionOf(outcome.conditions, 'Progressing') === undefined && spec.progressDeadlineSeconds !== undefined) {
        outcome.conditions = setCondition(outcome.conditions, newCondition('Progressing', 'True', REASONS.foundNewRS, `Found new replica set "${newRS.metadata.name ?? ''}"`, rfc3339(clock.now())));
      }
      const olds = new Map(group.oldRSs.map((rs) => [rs.metadata.name ?? '', rs]));
      const oldPodsRunning = group.oldRSs.some((rs) => rsViewOf(rs).statusReplicas > 0 || informers.pods.dependentsOf(rs.metadata.uid ?? '').some((p) => !['Failed', 'Succeeded'].includes(podStatusOf(p).phase ?? '')));
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
            expectations.raise(queueKey, 1);
            const created = await createReplicaSet(target, site, action.replicas, maxReplicas, revision, previous.collisionCount, (name) => holders.claim(revision, name)).catch((error: unknown) => {
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
      for (const [name, rs] of olds) if (!rsViewOf(rs).deleting) await markReplicaSet(target, rs, holders.holds(name));
      return share(group, newRS, [...olds.values()], views);
    }
  };
}

/** A site the Deployment left: scale its ReplicaSets to 0, delete them once their pods are gone (kube's revision annotation kept on the holders meanwhile). */
async function drainSite(target: WriteTarget, group: SiteGroup, maxReplicas: number, holders: RevisionHolders): Promise<SiteShare> {
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
      continue;
    } else {
      kept.push(rs);
    }
    await markReplicaSet(target, rs, holders.holds(view.name));
  }
  return share(group, undefined, kept, views);
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

/** Writes the status, sets `annotations` and removes `removed` (annotations that belong on ReplicaSets, which `kubectl rollout undo` copies over). */
async function writeStatus(deployments: GenericStore, scope: RequestScope, deployment: KubeObject, status: DeploymentStatusView, annotations: Record<string, string>, removed: readonly string[]): Promise<void> {
  const current = deployment.metadata.annotations ?? {};
  const annotationsChanged = Object.entries(annotations).some(([k, v]) => current[k] !== v) || removed.some((k) => k in current);
  if (!annotationsChanged && semanticEqual(status, deployment.status)) return;
  await deployments.update(
    scope,
    deployment.metadata.name ?? '',
    (live) => {
      if (live.metadata.uid !== deployment.metadata.uid) return live;
      const kept = Object.entries(live.metadata.annotations ?? {}).filter(([k]) => !removed.includes(k));
      live.metadata.annotations = { ...Object.fromEntries(kept), ...annotations };
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
