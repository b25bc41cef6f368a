import type { Logger } from '../../observability/logger.js';
import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../registry/deletion.js';
import type { GenericStore } from '../../registry/generic-store.js';
import { resourcePrefix } from '../../registry/keys.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject, ObjectMeta, OwnerReference } from '../../apimachinery/object.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { ClusterObjects } from './cluster-objects.js';
import { blocksOwner, ownerState, planDependent, unblocked, withoutOwners, type ClassifiedOwner } from './dependent-plan.js';
import { clusterId, itemKey, locate, nodeId, parseItemKey } from './graph-node.js';
import type { OwnerGraph } from './owner-graph.js';

/** What the collector did, for metrics. */
export type CollectorAction = 'delete' | 'remove_owner_references' | 'unblock_owner_references' | 'orphan_dependent' | 'remove_finalizer';

export interface ReconcilerDependencies {
  readonly graph: OwnerGraph;
  readonly objects: ClusterObjects;
  readonly enqueue: (item: string) => void;
  readonly logger: Logger;
  readonly onAction?: (action: CollectorAction) => void;
  /** While an owner waits for dependents being deleted, look again after this long (default 10 s). */
  readonly foregroundRecheckMs?: number;
}

interface Target {
  readonly store: GenericStore;
  readonly cluster: ClusterRef;
  readonly name: string;
  readonly uid: string;
  readonly kind: string;
}

/**
 * One reconcile of one object (a work item: store key and uid), from its live state
 * (kube's attemptToDeleteItem and attemptToOrphan together):
 * - being deleted with `orphan`: drop the references to it from every dependent, then the
 *   finalizer;
 * - being deleted with `foregroundDeletion`: have its dependents deleted; once none that
 *   blocks owner deletion remains (dependents still being deleted count), drop the finalizer;
 * - being deleted otherwise: nothing (its dependents are looked at once it is gone);
 * - not being deleted, with owners: see {@link planDependent}.
 */
export function garbageCollectorReconciler(deps: ReconcilerDependencies): (item: string) => Promise<ReconcileResult | void> {
  const { objects, logger } = deps;
  const act = (action: CollectorAction, target: Target, details: Record<string, unknown>, message: string): void => {
    deps.onAction?.(action);
    logger.info({ cluster: clusterId(target.cluster), kind: target.kind, name: target.name, uid: target.uid, ...details }, message);
  };

  const orphanDependents = async (target: Target): Promise<void> => {
    for (const { store, object } of await objects.dependentsOf(target.cluster, target.uid)) {
      const dependent = object.metadata.name ?? '';
      const outcome = await objects.updateMetadata(store, target.cluster, dependent, object.metadata.uid ?? '', (meta) => dropOwners(meta, [target.uid]));
      if (outcome === 'written') act('orphan_dependent', target, { dependent: `${store.strategy.resource.kind}/${dependent}` }, 'garbage collector orphaned a dependent');
    }
    await removeFinalizer(target, ORPHAN_FINALIZER);
  };

  const removeFinalizer = async (target: Target, finalizer: string): Promise<void> => {
    const outcome = await objects.updateMetadata(target.store, target.cluster, target.name, target.uid, (meta) => {
      const finalizers = meta.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return undefined;
      const rest = finalizers.filter((f) => f !== finalizer);
      const { finalizers: _dropped, ...others } = meta;
      return rest.length === 0 ? others : { ...others, finalizers: rest };
    });
    if (outcome === 'written') act('remove_finalizer', target, { finalizer }, 'garbage collector removed a finalizer');
  };

  const deleteDependentsFirst = async (target: Target): Promise<ReconcileResult | void> => {
    const dependents = await objects.dependentsOf(target.cluster, target.uid);
    const blocking = dependents.filter((d) => blocksOwner(d.object, target.uid));
    if (blocking.length === 0) return removeFinalizer(target, FOREGROUND_FINALIZER);
    for (const { store, object } of dependents) {
      if (object.metadata.deletionTimestamp === undefined) deps.enqueue(itemKey(store.key(target.cluster, object.metadata.name ?? ''), object.metadata.uid ?? ''));
    }
    logger.debug({ cluster: clusterId(target.cluster), kind: target.kind, name: target.name, blocking: blocking.length }, 'garbage collector: owner waits for its dependents');
    return { requeueAfterMs: deps.foregroundRecheckMs ?? 10_000 };
  };

  const collectDependent = async (target: Target, live: KubeObject): Promise<void> => {
    const refs = live.metadata.ownerReferences ?? [];
    if (refs.length === 0) return;
    const owners = await classify(objects, target.cluster, refs);
    const known = deps.graph.dependentsOf(nodeId(target.cluster, target.uid));
    const plan = planDependent({
      owners,
      finalizers: live.metadata.finalizers ?? [],
      hasDependents: known.length > 0,
      dependentDeletingDependents: known.some((d) => d.deletingDependents),
    });
    const states = owners.map((o) => `${o.ref.kind}/${o.ref.name}: ${o.state}`);
    switch (plan.action) {
      case 'keep':
        return;
      case 'removeOwners': {
        const outcome = await objects.updateMetadata(target.store, target.cluster, target.name, target.uid, (meta) => dropOwners(meta, plan.uids));
        if (outcome === 'written') act('remove_owner_references', target, { owners: states }, 'garbage collector removed references to absent owners');
        return;
      }
      case 'delete': {
        if (plan.unblock) {
          const outcome = await objects.updateMetadata(target.store, target.cluster, target.name, target.uid, (meta) => unblock(meta));
          if (outcome === 'written') act('unblock_owner_references', target, {}, 'garbage collector made owner references non-blocking');
        }
        const outcome = await objects.delete(target.store, target.cluster, target.name, target.uid, plan.policy);
        if (outcome !== 'gone') act('delete', target, { policy: plan.policy, owners: states, removed: outcome === 'removed' }, 'garbage collector deleted an object whose owners are gone');
        return;
      }
    }
  };

  return async (item) => {
    const { storeKey, uid } = parseItemKey(item);
    const store = objects.storeAt(storeKey);
    const where = store === undefined ? undefined : locate(resourcePrefix(store.strategy.resource), storeKey);
    if (store === undefined || where === undefined) return;
    const live = await objects.get(store, where.cluster, where.name);
    if (live === undefined || live.metadata.uid !== uid) return;
    const target: Target = { store, cluster: where.cluster, name: where.name, uid, kind: store.strategy.resource.kind };
    if (live.metadata.deletionTimestamp === undefined) return collectDependent(target, live);
    const finalizers = live.metadata.finalizers ?? [];
    if (finalizers.includes(ORPHAN_FINALIZER)) return orphanDependents(target);
    if (finalizers.includes(FOREGROUND_FINALIZER)) return deleteDependentsFirst(target);
  };
}

/** Live reads of every owner a reference names (one read per distinct owner). */
async function classify(objects: ClusterObjects, cluster: ClusterRef, refs: readonly OwnerReference[]): Promise<ClassifiedOwner[]> {
  const read = new Map<string, Promise<KubeObject | undefined>>();
  const owners: ClassifiedOwner[] = [];
  for (const ref of refs) {
    const store = objects.storeOfOwner(ref);
    if (store === undefined) {
      owners.push({ ref, state: 'unresolvable' });
      continue;
    }
    const key = `${store.strategy.resource.resource}.${store.strategy.resource.group}/${ref.name}`;
    let owner = read.get(key);
    if (owner === undefined) read.set(key, (owner = objects.get(store, cluster, ref.name)));
    owners.push({ ref, state: ownerState(ref, await owner) });
  }
  return owners;
}

function dropOwners(meta: ObjectMeta, uids: readonly string[]): ObjectMeta | undefined {
  const refs = meta.ownerReferences ?? [];
  const kept = withoutOwners(refs, uids);
  if (kept.length === refs.length) return undefined;
  const { ownerReferences: _dropped, ...others } = meta;
  return kept.length === 0 ? others : { ...others, ownerReferences: kept };
}

function unblock(meta: ObjectMeta): ObjectMeta | undefined {
  const refs = meta.ownerReferences ?? [];
  if (!refs.some((r) => r.blockOwnerDeletion === true)) return undefined;
  return { ...meta, ownerReferences: unblocked(refs) };
}
