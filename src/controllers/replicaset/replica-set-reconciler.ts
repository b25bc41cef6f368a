import type { PlacedSite } from '../placement/placed-site.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import { semanticEqual } from '../../vk8s/kinds/workload-common.js';
import type { ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ControllerContext } from '../manager/controller-context.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Expectations } from '../runtime/expectations.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { isControlledBy, ownerRefOfKind } from '../runtime/owner-references.js';
import { isPodActive } from '../runtime/pod-state.js';
import { createPod, deletePod, failedCreate, podFor, slowStartBatch, type PodWriter } from './pod-writes.js';
import { podsToDelete } from './pod-ranking.js';
import { replicaSetStatus, type ReplicaSetCondition } from './replica-set-status.js';

const REPLICASET_CONTROLLER = 'replicaset-controller';
/** kube's BurstReplicas: at most this many pods created or deleted per sync. */
const BURST_REPLICAS = 500;

/** The pods a ReplicaSet should run on one site. */
interface SiteTarget {
  readonly site: string;
  /** Set when pods may be created there (the workload is placed on the site). */
  readonly placed?: PlacedSite;
  readonly desired: number;
  readonly pods: readonly KubeObject[];
}

/**
 * One sync of a ReplicaSet (kube's syncReplicaSet). A ReplicaSet with a `svc.io/siteName`
 * label (every ReplicaSet a Deployment makes) runs `replicas` pods on that site, creating
 * only while its workload (the owning Deployment, else itself) is placed there. A
 * ReplicaSet without the label runs `replicas` pods on every site it is placed on itself
 * and none elsewhere. A workload whose placement resolves to no site stays where its pods
 * run (`PlacementView.placementOf`). Pods are created in slow-start batches and deleted by kube's ranking,
 * at most 500 per sync, behind expectations; the status counts its active pods.
 */
export function replicaSetReconciler(context: ControllerContext, expectations: Expectations): (key: ObjectKey, queueKey: string) => Promise<ReconcileResult | void> {
  const { informers, placement, events, clock } = context;
  const replicaSets = context.storage.storeFor({ group: 'apps', resource: 'replicasets' }) as GenericStore;
  const pods = context.storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;

  const workloadOf = (cluster: ClusterRef, rs: KubeObject): { workload: KubeObject; resource: { group: string; resource: string } } => {
    const ref = ownerRefOfKind(rs, 'Deployment');
    const owner = ref === undefined ? undefined : informers.deployments.get(cluster, ref.name);
    if (owner !== undefined && owner.metadata.uid === ref?.uid) return { workload: owner, resource: { group: 'apps', resource: 'deployments' } };
    return { workload: rs, resource: { group: 'apps', resource: 'replicasets' } };
  };

  // The placement engine hands out the same array while a placement holds: index it by name once,
  // not per sync (a ReplicaSet sync per site over 10,000 placed sites would otherwise be quadratic).
  const indexes = new WeakMap<readonly PlacedSite[], ReadonlyMap<string, PlacedSite>>();
  const byName = (placed: readonly PlacedSite[]): ReadonlyMap<string, PlacedSite> => {
    let index = indexes.get(placed);
    if (index === undefined) indexes.set(placed, (index = new Map(placed.map((s) => [s.name, s]))));
    return index;
  };

  const targetsOf = (cluster: ClusterRef, rs: KubeObject, active: readonly KubeObject[], placed: readonly PlacedSite[]): SiteTarget[] => {
    const replicas = specOf<ReplicaSetSpec>(rs).replicas ?? 0;
    const own = rs.metadata.labels?.[POD_SITE_LABEL];
    const placedByName = byName(placed);
    if (own !== undefined) {
      const where = placedByName.get(own);
      return [{ site: own, ...(where === undefined ? {} : { placed: where }), desired: replicas, pods: active }];
    }
    const sites = new Set([...placedByName.keys(), ...active.map((p) => p.metadata.labels?.[POD_SITE_LABEL] ?? '')]);
    return [...sites].sort().map((site) => {
      const where = placedByName.get(site);
      return { site, ...(where === undefined ? {} : { placed: where }), desired: where === undefined ? 0 : replicas, pods: active.filter((p) => (p.metadata.labels?.[POD_SITE_LABEL] ?? '') === site) };
    });
  };

  const manage = async (writer: PodWriter, queueKey: string, rs: KubeObject, targets: readonly SiteTarget[], workload: KubeObject): Promise<{ reason: string; message: string } | undefined> => {
    const template = specOf<ReplicaSetSpec>(rs).template ?? {};
    let budget = BURST_REPLICAS;
    const creations: Array<{ target: SiteTarget & { placed: PlacedSite }; count: number }> = [];
    const deletions: KubeObject[] = [];
    for (const target of targets) {
      const diff = target.desired - target.pods.length;
      if (diff > 0 && target.placed !== undefined && budget > 0) {
        const count = Math.min(diff, budget);
        budget -= count;
        creations.push({ target: { ...target, placed: target.placed }, count });
      } else if (diff < 0 && budget > 0) {
        const count = Math.min(-diff, budget);
        budget -= count;
        deletions.push(...podsToDelete(target.pods, count));
      }
    }
    if (creations.length === 0 && deletions.length === 0) return undefined;
    const total = creations.reduce((t, c) => t + c.count, 0);
    expectations.expectCreations(queueKey, total);
    expectations.expectDeletions(queueKey, deletions.map((p) => p.metadata.uid ?? ''));
    let failure: { reason: string; message: string } | undefined;
    for (const { target, count } of creations) {
      let pod: KubeObject;
      try {
        pod = podFor(writer, rs, workload, template, target.placed);
      } catch (error) {
        for (let i = 0; i < count; i++) expectations.creationObserved(queueKey);
        failure ??= { reason: 'FailedCreate', message: failedCreate(writer, rs, error).message };
        continue;
      }
      const { ran, error } = await slowStartBatch(count, async () => {
        const failed = await createPod(writer, rs, pod);
        if (failed !== undefined) expectations.creationObserved(queueKey);
        return failed;
      });
      for (let i = ran; i < count; i++) expectations.creationObserved(queueKey);
      if (error !== undefined) failure ??= { reason: 'FailedCreate', message: error.message };
    }
    const deleted = await Promise.all(
      deletions.map(async (pod) => {
        const failed = await deletePod(writer, rs, pod);
        if (failed !== undefined) expectations.deletionObserved(queueKey, pod.metadata.uid ?? '');
        return failed;
      }),
    );
    const deleteError = deleted.find((e) => e !== undefined);
    if (deleteError !== undefined) failure ??= { reason: 'FailedDelete', message: deleteError.message };
    return failure;
  };

  return async (key, queueKey) => {
    const rs = informers.replicaSets.get(key.cluster, key.name);
    if (rs === undefined) return expectations.forget(queueKey);
    const scope: RequestScope = { cluster: key.cluster, dryRun: false, fieldManager: REPLICASET_CONTROLLER };
    const writer: PodWriter = { pods, scope, events, podTemplateFor: context.podTemplateFor };
    const active = informers.pods.dependentsOf(rs.metadata.uid ?? '').filter((p) => isControlledBy(p, rs.metadata.uid) && isPodActive(p));
    let failure: { reason: string; message: string } | undefined;
    const satisfied = expectations.satisfied(queueKey);
    if (satisfied && rs.metadata.deletionTimestamp === undefined) {
      const { workload, resource } = workloadOf(key.cluster, rs);
      const own = rs.metadata.labels?.[POD_SITE_LABEL];
      const running = own !== undefined ? [own] : active.map((p) => p.metadata.labels?.[POD_SITE_LABEL] ?? '');
      const placed = placement.placementOf(resource, key.cluster, workload, running).sites;
      failure = await manage(writer, queueKey, rs, targetsOf(key.cluster, rs, active, placed), workload);
    }
    const spec = specOf<ReplicaSetSpec>(rs);
    const minReadySeconds = spec.minReadySeconds ?? 0;
    const previous = statusOf<{ conditions?: ReplicaSetCondition[] }>(rs);
    const status = replicaSetStatus({
      pods: active,
      templateLabels: spec.template?.metadata?.labels ?? {},
      minReadySeconds,
      generation: rs.metadata.generation ?? 1,
      previousConditions: previous.conditions ?? [],
      ...(failure === undefined ? {} : { failure }),
      now: clock.now(),
    });
    // Pods this sync created or deleted are not in the informer yet: the status would count
    // the old set and be rewritten as soon as they show up (whose events requeue this
    // ReplicaSet). Write it then, once — unless there is a failure to report now.
    const inFlight = failure === undefined && !expectations.satisfied(queueKey);
    if (!inFlight && !semanticEqual(status, rs.status)) {
      await replicaSets.update(
        scope,
        key.name,
        (live) => {
          if (live.metadata.uid === rs.metadata.uid) live.status = { ...status };
          return live;
        },
        { subresource: 'status', retryOnConflict: true },
      );
    }
    if (minReadySeconds > 0 && status.readyReplicas !== status.availableReplicas) return { requeueAfterMs: minReadySeconds * 1000 };
    // Waiting for the informer to show our writes: its events requeue us; this is the net for a lost one.
    return satisfied ? undefined : { requeueAfterMs: 30_000 };
  };
}
