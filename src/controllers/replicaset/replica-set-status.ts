import type { KubeObject } from '../../apimachinery/object.js';
import { isPodAvailable, isPodReady } from '../runtime/pod-state.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

export interface ReplicaSetCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

export interface ReplicaSetStatusView {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  observedGeneration: number;
  conditions?: ReplicaSetCondition[];
}

export interface ReplicaSetStatusInput {
  /** The ReplicaSet's active pods (not finished, not being deleted). */
  readonly pods: readonly KubeObject[];
  readonly templateLabels: Readonly<Record<string, string>>;
  readonly minReadySeconds: number;
  readonly generation: number;
  readonly previousConditions: readonly ReplicaSetCondition[];
  /** Why creating or deleting pods failed in this sync, if it did (reason FailedCreate / FailedDelete). */
  readonly failure?: { readonly reason: string; readonly message: string };
  readonly now: Date;
}

/**
 * kube's calculateStatus for a ReplicaSet: counts of its active pods (all, those with every
 * template label, ready, available after minReadySeconds), the generation seen, and a
 * ReplicaFailure condition while creating or deleting pods fails (set once, removed on the
 * first sync without failure).
 */
export function replicaSetStatus(input: ReplicaSetStatusInput): ReplicaSetStatusView {
  const labels = Object.entries(input.templateLabels);
  const status: ReplicaSetStatusView = {
    replicas: input.pods.length,
    fullyLabeledReplicas: input.pods.filter((p) => labels.every(([k, v]) => p.metadata.labels?.[k] === v)).length,
    readyReplicas: input.pods.filter(isPodReady).length,
    availableReplicas: input.pods.filter((p) => isPodAvailable(p, input.minReadySeconds, input.now)).length,
    observedGeneration: input.generation,
  };
  let conditions = [...input.previousConditions];
  const existing = conditions.find((c) => c.type === 'ReplicaFailure');
  if (input.failure !== undefined && existing === undefined) {
    conditions.push({ type: 'ReplicaFailure', status: 'True', lastTransitionTime: metav1Time(input.now), reason: input.failure.reason, message: input.failure.message });
  } else if (input.failure === undefined && existing !== undefined) {
    conditions = conditions.filter((c) => c.type !== 'ReplicaFailure');
  }
  if (conditions.length > 0) status.conditions = conditions;
  return status;
}
