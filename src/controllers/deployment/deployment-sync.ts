import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore } from '../../registry/generic-store.js';
import type { DeploymentSpec, ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import type { ControllerContext } from '../manager/controller-context.js';
import type { PlacedSite } from '../placement/placed-site.js';
import type { Expectations } from '../runtime/expectations.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { isOwnedBy } from '../runtime/owner-references.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import { conditionOf, newCondition, REASONS, setCondition, type DeploymentCondition } from './deployment-conditions.js';
import { type DeploymentStatusView, type SiteShare } from './deployment-status.js';
import { DEPLOYMENT_CONTROLLER, type WriteTarget } from './replica-set-writes.js';
import { maxSurgeOf, type RolloutStrategy } from './rollout-math.js';
import type { SiteMemo, SiteMemos } from './site-memos.js';
import { currentRevision, groupBySite, type SiteGroup } from './site-groups.js';
import { metav1Time } from '../../apimachinery/meta-time.js';
import { siteOfflineSince } from '../controller-kit/site-offline.js';

export const DEPLOYMENTS = { group: 'apps', resource: 'deployments' } as const;

/** What every sync of the Deployment controller uses, for the life of the controller. */
export interface DeploymentSyncDeps {
  readonly context: ControllerContext;
  /** ReplicaSet creations per Deployment (queue key), until the informer shows them. */
  readonly expectations: Expectations;
  readonly deployments: GenericStore;
  readonly replicaSets: GenericStore;
  readonly memos: SiteMemos;
}

/**
 * One sync of one Deployment: what it read when it started (fixed), and what the syncs of its
 * sites learn as they go (what the status is made of).
 */
export interface DeploymentSync {
  readonly deps: DeploymentSyncDeps;
  readonly key: ObjectKey;
  readonly queueKey: string;
  readonly deployment: KubeObject;
  readonly spec: DeploymentSpec;
  /** spec.replicas: what every site runs. */
  readonly replicas: number;
  readonly strategy: RolloutStrategy;
  /** replicas + maxSurge, for the max-replicas annotation of the ReplicaSets. */
  readonly maxReplicas: number;
  /** The Deployment is being deleted: its ReplicaSets are left alone, only the status is written. */
  readonly deleting: boolean;
  /** Where the Deployment is placed (nowhere while it is being deleted). */
  readonly sites: readonly PlacedSite[];
  /** Its ReplicaSets (those it owns, from the informer). */
  readonly owned: readonly KubeObject[];
  /** Its ReplicaSets by site: every placed site, then the sites it left that still have some. */
  readonly groups: readonly SiteGroup[];
  /** The groups' sites that are offline, with since when (siteOfflineSince of their Nodes). */
  readonly offline: ReadonlyMap<string, string>;
  /** The revision of the current template, the same on every site. */
  readonly revision: number;
  /** `<uid>/<generation>`, what a site's memo must have been taken at. */
  readonly generation: string;
  /** The site memos of this Deployment (see SiteMemos). */
  readonly siteMemos: Map<string, SiteMemo>;
  /** The status as the informer shows it. */
  readonly previous: DeploymentStatusView;
  /** Where this sync writes ReplicaSets. */
  readonly target: WriteTarget;
  /** Learned: what each site with ReplicaSets adds to the status, in site order. */
  readonly shares: SiteShare[];
  /** Learned: whether some site rolled out (or resized) this time, for the Progressing condition. */
  rollout: boolean;
  /** Learned: the conditions so far (paused or resumed, new ReplicaSet found or created). */
  conditions: DeploymentCondition[];
  /** Learned: the ReplicaSets as this sync leaves them (for the choice of the controlled one per revision). */
  readonly remaining: KubeObject[];
}

/**
 * The start of a sync (kube's getReplicaSetsForDeployment and checkPausedConditions): reads
 * the Deployment's spec and ReplicaSets from the informers, where it is placed, its sites'
 * ReplicaSets and the current revision.
 */
export function startDeploymentSync(deps: DeploymentSyncDeps, key: ObjectKey, queueKey: string, deployment: KubeObject): DeploymentSync {
  const { informers, placement, events, clock } = deps.context;
  const uid = deployment.metadata.uid;
  const owned = informers.replicaSets.dependentsOf(uid ?? '').filter((rs) => isOwnedBy(rs, uid));
  const spec = specOf<DeploymentSpec>(deployment);
  const replicas = spec.replicas ?? 1;
  const strategy: RolloutStrategy = spec.strategy?.type === 'Recreate' ? { type: 'Recreate' } : { type: 'RollingUpdate', ...(spec.strategy?.rollingUpdate ?? {}) };
  const deleting = deployment.metadata.deletionTimestamp !== undefined;
  const placed = deleting ? { sites: [] } : placement.placementOf(DEPLOYMENTS, key.cluster, deployment, runningSites(owned));
  const sites = placed.sites;
  const groups = groupBySite(owned, sites, spec.template);
  const previous = statusOf<DeploymentStatusView>(deployment);
  const conditions = deleting ? [...(previous.conditions ?? [])] : placedCondition(previous.conditions ?? [], placed.unresolved, clock.now());
  return {
    deps,
    key,
    queueKey,
    deployment,
    spec,
    replicas,
    strategy,
    maxReplicas: replicas + maxSurgeOf(strategy, replicas),
    deleting,
    sites,
    owned,
    groups,
    offline: offlineOf(deps.context, groups),
    generation: `${uid ?? ''}/${deployment.metadata.generation ?? 0}`,
    siteMemos: deps.memos.of(queueKey, groups),
    revision: currentRevision(owned, spec.template),
    previous,
    target: { replicaSets: deps.replicaSets, scope: { cluster: key.cluster, dryRun: false, fieldManager: DEPLOYMENT_CONTROLLER }, deployment, events },
    shares: [],
    rollout: false,
    conditions: deleting ? conditions : pausedConditions(conditions, spec, clock.now()),
    remaining: [],
  };
}

/** The sites of `groups` that are offline now, with since when. */
function offlineOf(context: ControllerContext, groups: readonly SiteGroup[]): Map<string, string> {
  const offline = new Map<string, string>();
  for (const group of groups) {
    const since = group.site === '' ? undefined : siteOfflineSince(context.sites.nodesOf(group.site));
    if (since !== undefined) offline.set(group.site, since);
  }
  return offline;
}

/** The sites where some ReplicaSet of the Deployment has (or wants) pods. */
function runningSites(owned: readonly KubeObject[]): string[] {
  const sites: string[] = [];
  for (const rs of owned) {
    const site = rs.metadata.labels?.[POD_SITE_LABEL];
    const wanted = specOf<ReplicaSetSpec>(rs).replicas ?? 0;
    if (site !== undefined && (wanted > 0 || (statusOf<{ replicas?: number }>(rs).replicas ?? 0) > 0)) sites.push(site);
  }
  return sites;
}

/**
 * The `Placed` condition (ours; kube has none): absent while the placement has always
 * resolved; False (`NoSiteMatches`) while the references resolve to no site and the
 * Deployment stays where it runs; True (`SitesMatched`) once they resolve again.
 */
function placedCondition(conditions: readonly DeploymentCondition[], unresolved: string | undefined, now: Date): DeploymentCondition[] {
  if (unresolved !== undefined) return setCondition(conditions, newCondition('Placed', 'False', REASONS.noSiteMatches, unresolved, metav1Time(now)));
  if (conditionOf(conditions, 'Placed') === undefined) return [...conditions];
  return setCondition(conditions, newCondition('Placed', 'True', REASONS.sitesMatched, 'The placement resolves to sites.', metav1Time(now)));
}

/** kube's checkPausedConditions: Progressing Unknown while paused, and once resumed. */
function pausedConditions(conditions: DeploymentCondition[], spec: DeploymentSpec, now: Date): DeploymentCondition[] {
  if (spec.progressDeadlineSeconds === undefined) return conditions;
  const paused = conditionOf(conditions, 'Progressing')?.reason === REASONS.paused;
  if (spec.paused === true && !paused) return setCondition(conditions, newCondition('Progressing', 'Unknown', REASONS.paused, 'Deployment is paused', metav1Time(now)));
  if (spec.paused !== true && paused) return setCondition(conditions, newCondition('Progressing', 'Unknown', REASONS.resumed, 'Deployment is resumed', metav1Time(now)));
  return conditions;
}
