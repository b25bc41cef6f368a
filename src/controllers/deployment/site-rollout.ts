import { byCreation, sum, type RsView } from './replica-set-view.js';
import { maxSurgeOf, newReplicaSetSize, oldReplicaSetSizes, proportionalSizes, type RolloutStrategy } from './rollout-math.js';

/** One write the rollout of a site asks for. */
export type RolloutAction =
  /** Create the site's ReplicaSet for the current template with this many replicas. */
  | { readonly type: 'create'; readonly replicas: number }
  /** Size a ReplicaSet (and set its desired/max-replicas annotations). */
  | { readonly type: 'scale'; readonly name: string; readonly replicas: number }
  /** Delete an old ReplicaSet beyond the revision history. */
  | { readonly type: 'delete'; readonly name: string };

export interface SiteRolloutInput {
  readonly strategy: RolloutStrategy;
  /** spec.replicas: the count every site runs. */
  readonly replicas: number;
  readonly paused: boolean;
  /** spec.revisionHistoryLimit (kube's default 10 is applied by the API). */
  readonly revisionHistoryLimit?: number;
  /** The site's ReplicaSet whose template is the Deployment's, if it exists. */
  readonly newRS?: RsView;
  /** The site's other ReplicaSets. */
  readonly oldRSs: readonly RsView[];
  /** Recreate: whether pods of the old ReplicaSets still run (kube's oldPodsRunning). */
  readonly oldPodsRunning: boolean;
}

/**
 * One sync of one site's share of a Deployment, kube's syncDeployment for that site: a paused
 * Deployment or a change of replicas only resizes (proportionally across the active
 * ReplicaSets); otherwise one step of the strategy. RollingUpdate: create the new
 * ReplicaSet, grow it within maxSurge — or, when it cannot grow, shrink old ones within
 * maxUnavailable. Recreate: shrink every old ReplicaSet to 0, wait until their pods are
 * gone, then create (or grow) the new one. A finished rollout, and a paused Deployment,
 * delete the oldest empty ReplicaSets beyond revisionHistoryLimit. Pure: the caller writes.
 */
export function planSiteRollout(input: SiteRolloutInput): RolloutAction[] {
  const { newRS, oldRSs } = input;
  const all = newRS === undefined ? oldRSs : [...oldRSs, newRS];
  if (input.paused) return [...scale(input), ...cleanup(input)];
  if (isScalingEvent(input.replicas, all)) return scale(input);
  return input.strategy.type === 'Recreate' ? recreate(input) : rolling(input);
}

/** kube's isScalingEvent: an active ReplicaSet was sized for other replicas. */
function isScalingEvent(replicas: number, all: readonly RsView[]): boolean {
  return all.some((rs) => rs.specReplicas > 0 && rs.desiredReplicas !== undefined && rs.desiredReplicas !== replicas);
}

function rolling(input: SiteRolloutInput): RolloutAction[] {
  const actions: RolloutAction[] = [];
  let newRS = input.newRS;
  if (newRS === undefined) {
    const replicas = newReplicaSetSize(input.strategy, input.replicas, input.oldRSs, undefined);
    actions.push({ type: 'create', replicas });
    newRS = { ...emptyView(), specReplicas: replicas };
  } else if (newRS.specReplicas !== input.replicas) {
    const size = newRS.specReplicas > input.replicas ? input.replicas : newReplicaSetSize(input.strategy, input.replicas, [...input.oldRSs, newRS], newRS);
    if (size !== newRS.specReplicas) return [{ type: 'scale', name: newRS.name, replicas: size }];
  }
  const sizes = oldReplicaSetSizes(input.strategy, input.replicas, newRS, input.oldRSs);
  for (const [name, replicas] of sizes) actions.push({ type: 'scale', name, replicas });
  if (actions.length > 0) return actions;
  return isSiteComplete(input.replicas, newRS, input.oldRSs) ? cleanup(input) : [];
}

function recreate(input: SiteRolloutInput): RolloutAction[] {
  const active = input.oldRSs.filter((rs) => rs.specReplicas > 0);
  if (active.length > 0) return active.map((rs) => ({ type: 'scale', name: rs.name, replicas: 0 }));
  if (input.oldPodsRunning) return [];
  if (input.newRS === undefined) return [{ type: 'create', replicas: input.replicas }];
  if (input.newRS.specReplicas !== input.replicas) return [{ type: 'scale', name: input.newRS.name, replicas: input.replicas }];
  return isSiteComplete(input.replicas, input.newRS, input.oldRSs) ? cleanup(input) : [];
}

/** kube's scale(): resize the active ReplicaSets for new replicas (paused, or a scaling event). */
function scale(input: SiteRolloutInput): RolloutAction[] {
  const { newRS, oldRSs, replicas } = input;
  const active = [...oldRSs, ...(newRS === undefined ? [] : [newRS])].filter((rs) => rs.specReplicas > 0);
  const only = activeOrLatest(newRS, oldRSs, active);
  // kube leaves a ReplicaSet of the right size alone; its stale desired-replicas would then be a scaling event forever.
  if (only !== undefined) return only.specReplicas === replicas && (only.specReplicas === 0 || only.desiredReplicas === replicas) ? [] : [{ type: 'scale', name: only.name, replicas }];
  if (newRS !== undefined && isSaturated(replicas, newRS)) {
    return oldRSs.filter((rs) => rs.specReplicas > 0).map((rs) => ({ type: 'scale', name: rs.name, replicas: 0 }));
  }
  if (input.strategy.type !== 'RollingUpdate') return [];
  const statusReplicas = sum([...oldRSs, ...(newRS === undefined ? [] : [newRS])], 'statusReplicas');
  const sizes = proportionalSizes(input.strategy, replicas, active, statusReplicas);
  const actions: RolloutAction[] = [];
  for (const rs of active) {
    const size = sizes.get(rs.name) ?? rs.specReplicas;
    const maxReplicas = replicas + maxSurgeOf(input.strategy, replicas);
    if (size !== rs.specReplicas || rs.desiredReplicas !== replicas || rs.maxReplicas !== maxReplicas) actions.push({ type: 'scale', name: rs.name, replicas: size });
  }
  return actions;
}

/** kube's FindActiveOrLatest: the one active ReplicaSet; with none, the new or the newest one. */
function activeOrLatest(newRS: RsView | undefined, oldRSs: readonly RsView[], active: readonly RsView[]): RsView | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  if (active.length === 1) return active[0];
  if (active.length > 1) return undefined;
  return newRS ?? [...oldRSs].sort(byCreation).at(-1);
}

/** kube's IsSaturated: the new ReplicaSet was sized for these replicas and all of them are available. */
function isSaturated(replicas: number, rs: RsView): boolean {
  return rs.desiredReplicas === replicas && rs.specReplicas === replicas && rs.availableReplicas === replicas;
}

/** kube's DeploymentComplete for one site: every replica updated and available, no old one left. */
function isSiteComplete(replicas: number, newRS: RsView | undefined, oldRSs: readonly RsView[]): boolean {
  const updated = newRS?.statusReplicas ?? 0;
  const all = newRS === undefined ? oldRSs : [...oldRSs, newRS];
  return updated === replicas && sum(all, 'statusReplicas') === replicas && sum(all, 'availableReplicas') === replicas;
}

/** kube's cleanupDeployment: delete the oldest revisions beyond the limit that are empty and settled. */
function cleanup(input: SiteRolloutInput): RolloutAction[] {
  const limit = input.revisionHistoryLimit;
  if (limit === undefined) return [];
  const alive = input.oldRSs.filter((rs) => !rs.deleting).sort((a, b) => a.revision - b.revision || byCreation(a, b));
  const excess = alive.length - limit;
  if (excess <= 0) return [];
  return alive
    .slice(0, excess)
    .filter((rs) => rs.statusReplicas === 0 && rs.specReplicas === 0 && rs.generation <= rs.observedGeneration)
    .map((rs) => ({ type: 'delete', name: rs.name }));
}

function emptyView(): RsView {
  return { name: '', specReplicas: 0, statusReplicas: 0, readyReplicas: 0, availableReplicas: 0, createdAt: '\uffff', revision: 0, generation: 0, observedGeneration: 0, deleting: false };
}
