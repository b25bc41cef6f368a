import type { KubeObject } from '../../apimachinery/object.js';
import type { IntOrString, LabelSelector, PodTemplateSpec, TemplateMeta } from '../../api/pod-spec-types.js';

/**
 * Typed views of the apps/v1 and batch workload specs and statuses (k8s.io/api 1.17), read
 * from decoded JSON. Every field is optional: absent is what defaulting and validation look at.
 */

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector | null;
  template?: PodTemplateSpec;
  strategy?: { type?: string; rollingUpdate?: { maxUnavailable?: IntOrString; maxSurge?: IntOrString } | null };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector | null;
  template?: PodTemplateSpec;
}

export interface PersistentVolumeClaimTemplate {
  metadata?: TemplateMeta;
  spec?: { volumeMode?: string; resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> }; [field: string]: unknown };
  status?: { phase?: string; [field: string]: unknown };
  [field: string]: unknown;
}

export interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelector | null;
  template?: PodTemplateSpec;
  volumeClaimTemplates?: PersistentVolumeClaimTemplate[] | null;
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number } | null };
  revisionHistoryLimit?: number;
}

export interface JobSpec {
  parallelism?: number;
  completions?: number;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  selector?: LabelSelector | null;
  manualSelector?: boolean;
  template?: PodTemplateSpec;
  ttlSecondsAfterFinished?: number;
}

export interface CronJobSpec {
  schedule?: string;
  startingDeadlineSeconds?: number;
  concurrencyPolicy?: string;
  suspend?: boolean;
  jobTemplate?: { metadata?: TemplateMeta; spec?: JobSpec };
  successfulJobsHistoryLimit?: number;
  failedJobsHistoryLimit?: number;
}

/** Replica counts the apps status types share (all optional integers). */
export interface ReplicaStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  fullyLabeledReplicas?: number;
  currentReplicas?: number;
  collisionCount?: number;
  [field: string]: unknown;
}

/** The object's `spec` (an empty object when absent, without adding one). */
export function specOf<T>(object: KubeObject): T {
  return (typeof object.spec === 'object' && object.spec !== null ? object.spec : {}) as T;
}

/** The object's `spec`, added empty when absent (Go's spec structs are not pointers): for defaulting. */
export function ensureSpec<T>(object: KubeObject): T {
  if (typeof object.spec !== 'object' || object.spec === null) object.spec = {};
  return object.spec as T;
}

/** The object's `status` for reading; an empty object when absent. */
export function statusOf<T>(object: KubeObject): T {
  return (typeof object.status === 'object' && object.status !== null ? object.status : {}) as T;
}
