import type { RsView } from './replica-set-view.js';
import type { RolloutAction } from './site-rollout.js';

/**
 * The steps of a site's rollout that may run while the site is offline: those that take no
 * pod away — creating the new ReplicaSet, growing a ReplicaSet (its pods wait Pending, bound
 * when the site returns), deleting an empty old ReplicaSet beyond the revision history.
 * Shrinking a ReplicaSet (a rolling update's scale-down, a scale-down of the Deployment) waits
 * for the site to return: the pods it would delete still serve the site, and nobody there could
 * stop them. Pure.
 */
export function offlineSiteSteps(plan: readonly RolloutAction[], views: readonly RsView[]): RolloutAction[] {
  const byName = new Map(views.map((v) => [v.name, v]));
  return plan.filter((action) => {
    if (action.type !== 'scale') return true;
    return action.replicas >= (byName.get(action.name)?.specReplicas ?? 0);
  });
}
