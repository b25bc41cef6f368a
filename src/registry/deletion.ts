import type { KubeObject } from '../apimachinery/object.js';
import type { PropagationPolicy, Strategy } from './strategy.js';
import { metav1Time } from '../apimachinery/meta-time.js';

export const ORPHAN_FINALIZER = 'orphan';
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** A DELETE's options (metav1.DeleteOptions), already parsed and checked. */
export interface DeleteRequest {
  readonly propagationPolicy?: PropagationPolicy;
  /** Legacy `orphanDependents`. */
  readonly orphanDependents?: boolean;
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

/** What a DELETE does to the object it found. */
export type DeletionPlan =
  /** Remove it from the store now. */
  | { readonly action: 'remove' }
  /** Write it back marked for deletion (finalizers pending or graceful deletion); it stays. */
  | { readonly action: 'mark'; readonly object: KubeObject }
  /** It is already being deleted and this request changes nothing. */
  | { readonly action: 'pending' };

/**
 * kube-apiserver's deletion decision (registry store.go Delete with BeforeDelete and
 * updateForGracefulDeletionAndFinalizers), as a pure function: the propagation policy adds
 * or removes the `orphan` / `foregroundDeletion` finalizers; an object with finalizers, or a
 * kind with graceful deletion and a positive grace period, is marked with
 * `deletionTimestamp` instead of removed.
 */
export function planDeletion(current: KubeObject, request: DeleteRequest, strategy: Strategy, now: Date): DeletionPlan {
  const finalizers = nextFinalizers(current.metadata.finalizers ?? [], policyOf(request, strategy));
  const grace = gracePeriod(current, request, strategy);
  const alreadyDeleting = current.metadata.deletionTimestamp !== undefined;
  const sameFinalizers = sameSet(finalizers, current.metadata.finalizers ?? []);
  if (alreadyDeleting) {
    const currentGrace = current.metadata.deletionGracePeriodSeconds ?? 0;
    const shorter = grace < currentGrace;
    if (finalizers.length === 0 && (grace === 0 || currentGrace === 0)) return { action: 'remove' };
    if (sameFinalizers && !shorter) return { action: 'pending' };
    return { action: 'mark', object: marked(current, finalizers, shorter ? grace : currentGrace, now) };
  }
  if (finalizers.length === 0 && grace === 0) return { action: 'remove' };
  return { action: 'mark', object: marked(current, finalizers, grace, now) };
}

/** The policy a DELETE runs with: explicit, legacy orphanDependents, else the kind's default. */
function policyOf(request: DeleteRequest, strategy: Strategy): PropagationPolicy | undefined {
  if (request.propagationPolicy !== undefined) return request.propagationPolicy;
  if (request.orphanDependents !== undefined) return request.orphanDependents ? 'Orphan' : 'Background';
  return strategy.defaultPropagation === 'Orphan' ? 'Orphan' : undefined;
}

function nextFinalizers(existing: readonly string[], policy: PropagationPolicy | undefined): string[] {
  const rest = existing.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  switch (policy) {
    case 'Orphan':
      return [...rest, ORPHAN_FINALIZER];
    case 'Foreground':
      return [...rest, FOREGROUND_FINALIZER];
    case 'Background':
      return rest;
    case undefined:
      return [...existing];
  }
}

function gracePeriod(current: KubeObject, request: DeleteRequest, strategy: Strategy): number {
  if (strategy.defaultGracePeriodSeconds === undefined) return 0;
  const requested = request.gracePeriodSeconds ?? strategy.defaultGracePeriodSeconds(current);
  return Math.max(0, requested);
}

function marked(current: KubeObject, finalizers: string[], grace: number, now: Date): KubeObject {
  const metadata = { ...current.metadata };
  if (finalizers.length > 0) metadata.finalizers = finalizers;
  else delete metadata.finalizers;
  metadata.deletionTimestamp = metav1Time(new Date(now.getTime() + grace * 1000));
  metadata.deletionGracePeriodSeconds = grace;
  return { ...current, metadata };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

/** After an update: an object marked for deletion whose finalizers are all gone is removed (kube's ShouldDeleteDuringUpdate). */
export function shouldRemoveAfterUpdate(object: KubeObject): boolean {
  const meta = object.metadata;
  return meta.deletionTimestamp !== undefined && (meta.finalizers ?? []).length === 0 && (meta.deletionGracePeriodSeconds ?? 0) === 0;
}
