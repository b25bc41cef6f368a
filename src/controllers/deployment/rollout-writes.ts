import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { statusOf } from '../../vk8s/kinds/workload-types.js';
import { newCondition, REASONS, setCondition } from './deployment-conditions.js';
import { type DeploymentStatusView } from './deployment-status.js';
import type { DeploymentSync } from './deployment-sync.js';
import { createReplicaSet, deleteReplicaSet, scaleReplicaSet } from './replica-set-writes.js';
import { rsViewOf, type RsView } from './replica-set-view.js';
import type { RolloutAction } from './site-rollout.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

/** A site's ReplicaSets while its rollout plan is applied. */
export interface SiteRolloutState {
  /** The site's ReplicaSet of the current template, once there is one. */
  newRS: KubeObject | undefined;
  /** The site's other ReplicaSets, by name, less those deleted. */
  readonly olds: Map<string, KubeObject>;
  /** Old ReplicaSets this sync resized, as they are now (by name). */
  readonly views: Map<string, RsView>;
}

/** Makes the writes of one rollout step on `site` (see planSiteRollout), in order; the first failure rejects. */
export async function applyRolloutPlan(sync: DeploymentSync, site: string, state: SiteRolloutState, plan: readonly RolloutAction[]): Promise<void> {
  for (const action of plan) {
    switch (action.type) {
      case 'create':
        state.newRS = await createNewReplicaSet(sync, site, action.replicas);
        break;
      case 'scale':
        await resizeReplicaSet(sync, state, action.name, action.replicas);
        break;
      case 'delete': {
        const rs = state.olds.get(action.name);
        if (rs !== undefined) await deleteReplicaSet(sync.target, rs);
        state.olds.delete(action.name);
        break;
      }
    }
  }
}

/**
 * kube's getNewReplicaSet, create branch, behind expectations: the creation is expected
 * before it is made (and settled at once when it fails or finds the ReplicaSet already
 * there). A name taken by another object raises the Deployment's collisionCount and fails
 * the sync, which the next one retries under a new name. Sets Progressing
 * (NewReplicaSetCreated) when the Deployment has a progress deadline.
 */
async function createNewReplicaSet(sync: DeploymentSync, site: string, replicas: number): Promise<KubeObject> {
  const { expectations } = sync.deps;
  expectations.expectCreations(sync.queueKey, 1);
  const created = await createReplicaSet(sync.target, site, replicas, sync.maxReplicas, sync.revision, sync.previous.collisionCount, false).catch((error: unknown) => {
    expectations.creationObserved(sync.queueKey);
    throw error;
  });
  if (created === 'collision' || created.existed) expectations.creationObserved(sync.queueKey);
  if (created === 'collision') {
    await bumpCollisionCount(sync.deps.deployments, sync.target.scope, sync.deployment);
    throw new Error(`replica set name of deployment ${sync.key.name} on site ${site} is taken: collisionCount raised`);
  }
  if (sync.spec.progressDeadlineSeconds !== undefined) {
    sync.conditions = setCondition(sync.conditions, newCondition('Progressing', 'True', REASONS.newRSCreated, `Created new replica set "${created.object.metadata.name ?? ''}"`, metav1Time(sync.deps.context.clock.now())));
  }
  return created.object;
}

/** Sizes the site's new or old ReplicaSet `name` (gone meanwhile: nothing to do). */
async function resizeReplicaSet(sync: DeploymentSync, state: SiteRolloutState, name: string, replicas: number): Promise<void> {
  const rs = name === state.newRS?.metadata.name ? state.newRS : state.olds.get(name);
  if (rs === undefined) return;
  const scaled = await scaleReplicaSet(sync.target, rs, replicas, sync.maxReplicas);
  if (rs === state.newRS) state.newRS = scaled;
  else state.views.set(name, { ...rsViewOf(rs), specReplicas: replicas });
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
