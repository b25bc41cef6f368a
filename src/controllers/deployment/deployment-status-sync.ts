import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import { semanticEqual } from '../../vk8s/kinds/workload-common.js';
import { statusOf } from '../../vk8s/kinds/workload-types.js';
import { REVISION_ANNOTATION } from './deployment-annotations.js';
import type { DeploymentCondition } from './deployment-conditions.js';
import { deploymentStatus, SITE_STATUS_OMITTED_ANNOTATION, siteStatusJson, type DeploymentStatusView } from './deployment-status.js';
import type { DeploymentSync } from './deployment-sync.js';
import { recordOfflineEvents } from './offline-site-events.js';

/**
 * The last step of a sync (kube's syncRolloutStatus): the status summed over the sites'
 * shares (see deploymentStatus), the revision annotation (once the Deployment is placed
 * somewhere) and the `svc.io/site-status` breakdown, written through `/status` when any of
 * them changed; then the events of sites that went offline or came back
 * (recordOfflineEvents). Resolves to when the Deployment should be looked at again (its progress
 * deadline), if ever.
 */
export async function syncDeploymentStatus(sync: DeploymentSync): Promise<number | undefined> {
  const { spec, previous, replicas } = sync;
  const { status, requeueAfterMs } = deploymentStatus({
    name: sync.key.name,
    generation: sync.deployment.metadata.generation ?? 1,
    replicas,
    strategy: sync.strategy,
    ...(spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === 2147483647 ? {} : { progressDeadlineSeconds: spec.progressDeadlineSeconds }),
    shares: sync.shares,
    previous,
    conditions: sync.conditions,
    rollout: sync.rollout,
    ...replicaFailure(sync.owned),
    ...(previous.collisionCount === undefined ? {} : { collisionCount: previous.collisionCount }),
    now: sync.deps.context.clock.now(),
  });
  const breakdown = siteStatusJson(sync.shares, replicas);
  const annotations: Record<string, string | undefined> = { [SITE_STATUS_ANNOTATION]: breakdown.json, [SITE_STATUS_OMITTED_ANNOTATION]: breakdown.omitted === 0 ? undefined : String(breakdown.omitted) };
  if (sync.sites.length > 0) annotations[REVISION_ANNOTATION] = String(sync.revision);
  await writeStatus(sync.deps.deployments, sync.target.scope, sync.deployment, status, annotations);
  if (!sync.deleting) recordOfflineEvents(sync.deps.context.events, sync.key.cluster, sync.deployment, sync.shares);
  return requeueAfterMs;
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
