import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { ScaleAccess, StatusStrategy, Strategy, StrategyContext } from '../../registry/strategy.js';
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import { keepStatus, statusOnly } from './base-strategy.js';
import { dropDisabledPodSpecFields } from './pod-spec-drop.js';
import { validateNonNegative } from './pod-spec-probes.js';
import { invalidRendered } from './workload-go-value.js';
import { selectorString } from './workload-labels.js';
import type { LabelSelector, PodSpec } from '../../api/pod-spec-types.js';
import { specOf, statusOf, type ReplicaStatus } from './workload-types.js';

/** Lifecycle pieces the workload strategies share. */

/** A JSON value without the entries Go cannot tell from absent: null, empty lists, empty maps. */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map(normalized);
  if (typeof value !== 'object' || value === null) return value === null ? undefined : value;
  const result: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(value)) {
    const n = normalized(entry);
    if (n != null) result[key] = n;
  }
  return Object.keys(result).length === 0 ? undefined : result;
}

/**
 * apiequality.Semantic.DeepEqual on JSON: nil and empty slices and maps are equal (so are
 * absent fields). Used where kube compares specs (generation bumps, immutability).
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(normalized(a), normalized(b));
}

/** Workloads start at generation 1. */
function startGeneration(object: KubeObject): void {
  object.metadata.generation = 1;
}

/** Bump the generation when the spec changed (or `alsoChanged`, e.g. Deployment annotations). */
function bumpGeneration(object: KubeObject, old: KubeObject, alsoChanged = false): void {
  const previous = old.metadata.generation ?? 1;
  object.metadata.generation = alsoChanged || !semanticEqual(object.spec, old.spec) ? previous + 1 : previous;
}

/** ValidateImmutableField with a value rendered the Go way: `Invalid value: …: field is immutable`. */
export function validateImmutable(value: unknown, old: unknown, field: string, rendered: string): StatusCause[] {
  return semanticEqual(value, old) ? [] : [invalidRendered(field, rendered, 'field is immutable')];
}

/** The `/status` strategy of a workload: everything but status comes from the stored object. */
export function workloadStatusStrategy(validate: (object: KubeObject, old: KubeObject, context: StrategyContext) => StatusCause[]): StatusStrategy {
  const base = statusOnly();
  return { prepareForUpdate: (object, old) => base.prepareForUpdate(object, old), validateUpdate: validate };
}

/** Non-negative checks of status counters, at `status.<name>`. */
export function validateStatusCounters(status: Readonly<Record<string, unknown>>, names: readonly string[]): StatusCause[] {
  return names.flatMap((name) => {
    const value = status[name];
    return typeof value === 'number' ? validateNonNegative(value, `status.${name}`) : [];
  });
}

/** `status.<name>: Invalid value: N: cannot be greater than status.replicas` for each counter above it. */
export function validateNotAboveReplicas(status: ReplicaStatus, names: ReadonlyArray<keyof ReplicaStatus>): StatusCause[] {
  const replicas = status.replicas ?? 0;
  return names.flatMap((name) => {
    const value = status[name];
    return typeof value === 'number' && value > replicas ? [invalidRendered(`status.${name}`, String(value), 'cannot be greater than status.replicas')] : [];
  });
}

/** `status.collisionCount: Invalid value: N: cannot be decremented`. */
export function validateCollisionCount(object: KubeObject, old: KubeObject): StatusCause[] {
  const now = statusOf<ReplicaStatus>(object).collisionCount;
  const before = statusOf<ReplicaStatus>(old).collisionCount;
  if (before == null || (now != null && now >= before)) return [];
  return [invalidRendered('status.collisionCount', String(now ?? 0), 'cannot be decremented')];
}

/** Scale access for kinds with spec.replicas, status.replicas and a metav1 label selector. */
export function replicasScale(): ScaleAccess {
  return {
    specReplicas: (object) => specOf<{ replicas?: number }>(object).replicas ?? 0,
    setSpecReplicas: (object, replicas) => {
      if (typeof object.spec !== 'object' || object.spec === null) object.spec = {};
      (object.spec as { replicas?: number }).replicas = replicas;
    },
    statusReplicas: (object) => statusOf<ReplicaStatus>(object).replicas ?? 0,
    selector: (object) => selectorString(specOf<{ selector?: LabelSelector | null }>(object).selector),
  };
}

/** Causes without repeats (kube's aggregated message lists each problem once). */
export function uniqueCauses(causes: readonly StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  return causes.filter((c) => {
    const key = `${c.reason}\u0000${c.field}\u0000${c.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The lifecycle the replicated workloads (Deployment, ReplicaSet, StatefulSet) share: status
 * starts empty and is kept on update, generation starts at 1 and bumps on spec changes (and,
 * for Deployments, annotation changes), fields of disabled features are dropped from the
 * pod template.
 */
export function replicatedLifecycle(
  templateSpec: (object: KubeObject) => PodSpec | undefined,
  options: { readonly bumpOnAnnotations?: boolean } = {},
): Pick<Strategy, 'prepareForCreate' | 'prepareForUpdate'> {
  return {
    prepareForCreate: (object) => {
      object.status = {};
      startGeneration(object);
      dropDisabledPodSpecFields(templateSpec(object), undefined);
    },
    prepareForUpdate: (object, old) => {
      keepStatus(object, old);
      dropDisabledPodSpecFields(templateSpec(object), templateSpec(old));
      bumpGeneration(object, old, options.bumpOnAnnotations === true && !semanticEqual(object.metadata.annotations, old.metadata.annotations));
    },
  };
}
