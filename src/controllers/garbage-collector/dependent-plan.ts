import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../registry/deletion.js';
import type { PropagationPolicy } from '../../registry/strategy.js';
import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';

/**
 * How an owner reference stands, from a live read of the owner (kube's classifyReferences):
 * - `solid`: the owner exists and is not deleting its dependents in the foreground;
 * - `dangling`: no object of that kind and name, or one with another uid;
 * - `waiting`: the owner is being deleted in the foreground, waiting for its dependents;
 * - `unresolvable`: the reference names a kind this API does not store; it keeps the
 *   dependent like a solid owner (kube retries such references forever and deletes nothing).
 */
export type OwnerState = 'solid' | 'dangling' | 'waiting' | 'unresolvable';

export interface ClassifiedOwner {
  readonly ref: OwnerReference;
  readonly state: OwnerState;
}

export type DependentAction =
  | { readonly action: 'keep' }
  /** Some owners are left: drop the references to the others. */
  | { readonly action: 'removeOwners'; readonly uids: readonly string[] }
  /** No owner is left: delete it, first making its references non-blocking when `unblock`. */
  | { readonly action: 'delete'; readonly policy: PropagationPolicy; readonly unblock: boolean };

/** The state of `ref` given the live object of its kind and name (undefined when not found). */
export function ownerState(ref: OwnerReference, owner: KubeObject | undefined): OwnerState {
  if (owner === undefined || owner.metadata.uid !== ref.uid) return 'dangling';
  const deletingDependents = owner.metadata.deletionTimestamp !== undefined && (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER);
  return deletingDependents ? 'waiting' : 'solid';
}

export interface DependentFacts {
  readonly owners: readonly ClassifiedOwner[];
  /** The dependent's own finalizers (they choose the policy it is deleted with). */
  readonly finalizers: readonly string[];
  /** The dependent has dependents of its own (from the graph). */
  readonly hasDependents: boolean;
  /** One of its dependents is itself deleting its dependents in the foreground. */
  readonly dependentDeletingDependents: boolean;
}

/**
 * kube's attemptToDeleteItem decision for an object that is not being deleted:
 * - an object with a solid (or unresolvable) owner stays; references to dangling and
 *   waiting owners are removed;
 * - an object whose owners are all gone or waiting, at least one waiting, and that has
 *   dependents of its own, is deleted in the foreground — after making its references
 *   non-blocking when one of its dependents also waits, so two foreground deletions
 *   cannot wait on each other;
 * - otherwise it is deleted with the policy its own finalizers ask for (`orphan` →
 *   Orphan, `foregroundDeletion` → Foreground), else in the background.
 */
export function planDependent(facts: DependentFacts): DependentAction {
  const { owners } = facts;
  if (owners.length === 0) return { action: 'keep' };
  const gone = owners.filter((o) => o.state === 'dangling' || o.state === 'waiting');
  if (owners.some((o) => o.state === 'solid' || o.state === 'unresolvable')) {
    return gone.length === 0 ? { action: 'keep' } : { action: 'removeOwners', uids: [...new Set(gone.map((o) => o.ref.uid))] };
  }
  if (owners.some((o) => o.state === 'waiting') && facts.hasDependents) {
    return { action: 'delete', policy: 'Foreground', unblock: facts.dependentDeletingDependents };
  }
  const policy: PropagationPolicy = facts.finalizers.includes(ORPHAN_FINALIZER) ? 'Orphan' : facts.finalizers.includes(FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
  return { action: 'delete', policy, unblock: false };
}

/** The references without those to `uids`. */
export function withoutOwners(refs: readonly OwnerReference[], uids: readonly string[]): OwnerReference[] {
  return refs.filter((r) => !uids.includes(r.uid));
}

/** The references with every `blockOwnerDeletion: true` turned false (kube's unblock patch). */
export function unblocked(refs: readonly OwnerReference[]): OwnerReference[] {
  return refs.map((r) => (r.blockOwnerDeletion === true ? { ...r, blockOwnerDeletion: false } : r));
}

/** Does `object` block the foreground deletion of the owner `uid`? */
export function blocksOwner(object: KubeObject, uid: string): boolean {
  return (object.metadata.ownerReferences ?? []).some((r) => r.uid === uid && r.blockOwnerDeletion === true);
}
