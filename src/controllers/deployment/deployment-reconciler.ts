import type { GenericStore } from '../../registry/generic-store.js';
import type { ControllerContext } from '../manager/controller-context.js';
import type { ObjectReconcile } from '../runtime/controller-loop.js';
import type { Expectations } from '../runtime/expectations.js';
import { mapLimit } from '../runtime/map-limit.js';
import type { ObjectKey } from '../runtime/object-key.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import { syncDeploymentStatus } from './deployment-status-sync.js';
import { DEPLOYMENTS, startDeploymentSync, type DeploymentSync, type DeploymentSyncDeps } from './deployment-sync.js';
import { primaryReplicaSets } from './primary-replica-sets.js';
import { setDeploymentController } from './replica-set-writes.js';
import { SiteMemos } from './site-memos.js';
import { SITES_AT_ONCE, syncSites } from './site-sync.js';

/** While the informer has not shown a sync's ReplicaSet creations, look again after this long (their events usually come first). */
const EXPECTATIONS_RECHECK_MS = 30_000;

/**
 * The Deployment controller's reconcile, {@link syncDeployment}, with what its syncs share:
 * the stores it writes, the memos of sites that had nothing to do, and the expectations of
 * ReplicaSet creations.
 */
export function deploymentReconciler(context: ControllerContext, expectations: Expectations): ObjectReconcile {
  const deps: DeploymentSyncDeps = {
    context,
    expectations,
    deployments: context.storage.storeFor(DEPLOYMENTS) as GenericStore,
    replicaSets: context.storage.storeFor({ group: 'apps', resource: 'replicasets' }) as GenericStore,
    memos: new SiteMemos(),
  };
  return (key, queueKey) => syncDeployment(deps, key, queueKey);
}

/**
 * One sync of a Deployment (kube's syncDeployment, per site), in steps:
 * 1. a Deployment gone: forget its memos and expectations;
 * 2. creations of the last sync not yet in the informer: wait (no double creates);
 * 3. {@link startDeploymentSync}: read its ReplicaSets by site and the current revision;
 * 4. {@link syncSites}: each placed site gets one ReplicaSet per template revision and one
 *    step of the rollout; sites the Deployment left have their ReplicaSets scaled to 0, then
 *    deleted once empty;
 * 5. {@link syncControllerReferences}: one controlled ReplicaSet per revision;
 * 6. {@link syncDeploymentStatus}: the status summed over sites, the revision annotation and
 *    the `svc.io/site-status` breakdown, through `/status`.
 * Reads come from the informers; a failed write rejects, and the loop retries with backoff.
 */
async function syncDeployment(deps: DeploymentSyncDeps, key: ObjectKey, queueKey: string): Promise<ReconcileResult | void> {
  const started = performance.now();
  const deployment = deps.context.informers.deployments.get(key.cluster, key.name);
  if (deployment === undefined) return forgetDeployment(deps, queueKey);
  if (!deps.expectations.satisfied(queueKey)) return { requeueAfterMs: EXPECTATIONS_RECHECK_MS };
  const sync = startDeploymentSync(deps, key, queueKey, deployment);
  await syncSites(sync);
  if (!sync.deleting) await syncControllerReferences(sync);
  const requeueAfterMs = await syncDeploymentStatus(sync);
  deps.context.logger.debug({ controller: 'deployment', deployment: key.name, sites: sync.groups.length, ms: Math.round(performance.now() - started) }, 'deployment synced');
  return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
}

/** The Deployment is gone: what the controller kept about it goes too. */
function forgetDeployment(deps: DeploymentSyncDeps, queueKey: string): void {
  deps.memos.forget(queueKey);
  deps.expectations.forget(queueKey);
}

/** Makes the Deployment the controller of exactly one ReplicaSet per template (see primaryReplicaSets), and an owner only of the others. */
async function syncControllerReferences(sync: DeploymentSync): Promise<void> {
  const uid = sync.deployment.metadata.uid;
  const primaries = primaryReplicaSets(sync.remaining, new Set(sync.sites.map((s) => s.name)));
  const misflagged = sync.remaining.filter((rs) => primaries.has(rs) !== (rs.metadata.ownerReferences?.find((r) => r.uid === uid)?.controller === true));
  await mapLimit(misflagged, SITES_AT_ONCE, (rs) => setDeploymentController(sync.target, rs, primaries.has(rs)));
}
