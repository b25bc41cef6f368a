import type { IntOrString } from '../../api/pod-spec-types.js';
import { byCreation, sum, type RsView } from './replica-set-view.js';

/** A Deployment's strategy as the rollout rules read it (defaults applied by the API). */
export interface RolloutStrategy {
  readonly type: 'RollingUpdate' | 'Recreate';
  readonly maxSurge?: IntOrString;
  readonly maxUnavailable?: IntOrString;
}

/**
 * intstr.GetValueFromIntOrPercent: an integer as is; `N%` of `total`, rounded up or down.
 * Anything else (validation rejects it) counts as 0.
 */
export function valueFromIntOrPercent(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  if (value === undefined) return 0;
  const percent = /^([0-9]+)%$/.exec(value);
  if (percent === null) return /^[0-9]+$/.test(value) ? Number(value) : 0;
  const exact = (Number(percent[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * kube's ResolveFenceposts: surge rounds up, unavailability down; both 0 would deadlock a
 * rollout, so unavailability becomes 1.
 */
export function resolveFenceposts(maxSurge: IntOrString | undefined, maxUnavailable: IntOrString | undefined, desired: number): { surge: number; unavailable: number } {
  const surge = valueFromIntOrPercent(maxSurge, desired, true);
  const unavailable = valueFromIntOrPercent(maxUnavailable, desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

/** kube's MaxSurge: 0 unless rolling. */
export function maxSurgeOf(strategy: RolloutStrategy, replicas: number): number {
  if (strategy.type !== 'RollingUpdate') return 0;
  return resolveFenceposts(strategy.maxSurge, strategy.maxUnavailable, replicas).surge;
}

/** kube's MaxUnavailable: 0 unless rolling with replicas; never above the replicas. */
export function maxUnavailableOf(strategy: RolloutStrategy, replicas: number): number {
  if (strategy.type !== 'RollingUpdate' || replicas === 0) return 0;
  return Math.min(resolveFenceposts(strategy.maxSurge, strategy.maxUnavailable, replicas).unavailable, replicas);
}

/**
 * kube's NewRSNewReplicas: how big the new ReplicaSet may be now. Rolling: grow until all
 * ReplicaSets together reach replicas + maxSurge, never past the replicas. Recreate: all.
 */
export function newReplicaSetSize(strategy: RolloutStrategy, replicas: number, allRSs: readonly RsView[], newRS: RsView | undefined): number {
  if (strategy.type === 'Recreate') return replicas;
  const current = newRS?.specReplicas ?? 0;
  const maxTotal = replicas + maxSurgeOf(strategy, replicas);
  const podCount = sum(allRSs, 'specReplicas');
  if (podCount >= maxTotal) return current;
  return current + Math.min(maxTotal - podCount, replicas - current);
}

/**
 * kube's reconcileOldReplicaSets, as sizes: how far the old ReplicaSets may shrink without
 * available pods dropping below replicas − maxUnavailable. First the unhealthy replicas of
 * the oldest ReplicaSets go (cleanupUnhealthyReplicas), then available ones while
 * availability allows (scaleDownOldReplicaSetsForRollingUpdate). Returns the new size of each
 * old ReplicaSet that shrinks.
 */
export function oldReplicaSetSizes(strategy: RolloutStrategy, replicas: number, newRS: RsView | undefined, oldRSs: readonly RsView[]): Map<string, number> {
  const sizes = new Map<string, number>();
  if (sum(oldRSs, 'specReplicas') === 0) return sizes;
  const all = newRS === undefined ? oldRSs : [...oldRSs, newRS];
  const maxUnavailable = maxUnavailableOf(strategy, replicas);
  const minAvailable = replicas - maxUnavailable;
  const newUnavailable = newRS === undefined ? 0 : newRS.specReplicas - newRS.availableReplicas;
  let maxScaledDown = sum(all, 'specReplicas') - minAvailable - newUnavailable;
  if (maxScaledDown <= 0) return sizes;
  const oldest = [...oldRSs].sort(byCreation);
  const size = (rs: RsView): number => sizes.get(rs.name) ?? rs.specReplicas;
  let cleaned = 0;
  for (const rs of oldest) {
    if (cleaned >= maxScaledDown) break;
    if (rs.specReplicas === 0) continue;
    const unhealthy = rs.specReplicas - rs.availableReplicas;
    if (unhealthy <= 0) continue;
    const down = Math.min(maxScaledDown - cleaned, unhealthy);
    sizes.set(rs.name, rs.specReplicas - down);
    cleaned += down;
  }
  maxScaledDown -= cleaned;
  const available = sum(all, 'availableReplicas');
  if (available <= minAvailable) return sizes;
  const allowed = available - minAvailable;
  let scaled = 0;
  for (const rs of oldest) {
    if (scaled >= allowed) break;
    if (size(rs) === 0) continue;
    const down = Math.min(size(rs), allowed - scaled);
    sizes.set(rs.name, size(rs) - down);
    scaled += down;
  }
  return sizes;
}

/**
 * kube's proportional scaling (DeploymentController.scale) of the active ReplicaSets when the
 * replicas change mid-rollout: each ReplicaSet gets its share of the new total
 * (replicas + maxSurge) in proportion to its size against the total it was sized for (its
 * max-replicas annotation, else `statusReplicas`), the largest taking the rounding leftover.
 * Returns the new size of every ReplicaSet considered.
 */
export function proportionalSizes(strategy: RolloutStrategy, replicas: number, active: readonly RsView[], statusReplicas: number): Map<string, number> {
  const sizes = new Map<string, number>();
  const surge = maxSurgeOf(strategy, replicas);
  const allowed = replicas > 0 ? replicas + surge : 0;
  const toAdd = allowed - sum(active, 'specReplicas');
  const ordered = [...active].sort((a, b) => {
    if (a.specReplicas !== b.specReplicas) return b.specReplicas - a.specReplicas;
    return toAdd > 0 ? -byCreation(a, b) : byCreation(a, b);
  });
  let added = 0;
  for (const rs of ordered) {
    let share = 0;
    if (toAdd !== 0 && rs.specReplicas !== 0 && added !== toAdd) {
      const fraction = fractionOf(rs, replicas, surge, statusReplicas);
      share = toAdd > 0 ? Math.min(fraction, toAdd - added) : Math.max(fraction, toAdd - added);
    }
    sizes.set(rs.name, rs.specReplicas + share);
    added += share;
  }
  const first = ordered[0];
  if (first !== undefined && toAdd !== 0) sizes.set(first.name, Math.max(0, (sizes.get(first.name) ?? 0) + toAdd - added));
  return sizes;
}

/** kube's getReplicaSetFraction: the change of one ReplicaSet's size in a proportional scale. */
function fractionOf(rs: RsView, replicas: number, surge: number, statusReplicas: number): number {
  if (replicas === 0) return -rs.specReplicas;
  const sizedFor = rs.maxReplicas ?? statusReplicas;
  if (sizedFor === 0) return 0;
  return Math.round((rs.specReplicas * (replicas + surge)) / sizedFor) - rs.specReplicas;
}
