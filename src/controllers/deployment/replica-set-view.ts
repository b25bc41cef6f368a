import type { ReplicaSetSpec, ReplicaStatus } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, REVISION_ANNOTATION } from './deployment-annotations.js';

/** What the rollout rules read of a ReplicaSet. */
export interface RsView {
  readonly name: string;
  readonly specReplicas: number;
  readonly statusReplicas: number;
  readonly readyReplicas: number;
  readonly availableReplicas: number;
  /** creationTimestamp (RFC 3339; sorts as text). */
  readonly createdAt: string;
  /** `deployment.kubernetes.io/revision`, 0 when absent or bad. */
  readonly revision: number;
  /** `deployment.kubernetes.io/desired-replicas`, when set. */
  readonly desiredReplicas?: number;
  /** `deployment.kubernetes.io/max-replicas`, when set. */
  readonly maxReplicas?: number;
  readonly generation: number;
  readonly observedGeneration: number;
  readonly deleting: boolean;
}

/** Views per (immutable, informer-shared) ReplicaSet object. */
const views = new WeakMap<KubeObject, RsView>();

export function rsViewOf(rs: KubeObject): RsView {
  let view = views.get(rs);
  if (view === undefined) views.set(rs, (view = computeView(rs)));
  return view;
}

function computeView(rs: KubeObject): RsView {
  const status = statusOf<ReplicaStatus>(rs);
  const annotations = rs.metadata.annotations ?? {};
  const desired = intAnnotation(annotations[DESIRED_REPLICAS_ANNOTATION]);
  const max = intAnnotation(annotations[MAX_REPLICAS_ANNOTATION]);
  return {
    name: rs.metadata.name ?? '',
    specReplicas: specOf<ReplicaSetSpec>(rs).replicas ?? 0,
    statusReplicas: status.replicas ?? 0,
    readyReplicas: status.readyReplicas ?? 0,
    availableReplicas: status.availableReplicas ?? 0,
    createdAt: rs.metadata.creationTimestamp ?? '',
    revision: intAnnotation(annotations[REVISION_ANNOTATION]) ?? 0,
    ...(desired === undefined ? {} : { desiredReplicas: desired }),
    ...(max === undefined ? {} : { maxReplicas: max }),
    generation: rs.metadata.generation ?? 0,
    observedGeneration: status.observedGeneration ?? 0,
    deleting: rs.metadata.deletionTimestamp !== undefined,
  };
}

/** An annotation holding a decimal integer (kube's strconv.Atoi), else undefined. */
function intAnnotation(value: string | undefined): number | undefined {
  if (value === undefined || !/^-?[0-9]+$/.test(value)) return undefined;
  return Number(value);
}

/** kube's ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: RsView, b: RsView): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export const sum = (rss: readonly RsView[], field: 'specReplicas' | 'statusReplicas' | 'readyReplicas' | 'availableReplicas'): number => rss.reduce((total, rs) => total + rs[field], 0);
