import type { StatefulSiteCounts } from './stateful-site-plan.js';

/** The apps/v1 StatefulSetStatus fields the controller writes. */
export interface StatefulSetStatusView {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  [field: string]: unknown;
}

export interface StatefulStatusInput {
  readonly generation: number;
  readonly previous: StatefulSetStatusView;
  readonly rollingUpdate: boolean;
  readonly currentRevision: string;
  readonly updateRevision: string;
  /** Every site with pods or placement: its counts and whether it has nothing left to do. */
  readonly sites: ReadonlyMap<string, { readonly counts: StatefulSiteCounts; readonly settled: boolean }>;
}

/**
 * The StatefulSet's status as the vK8s shows it: the sum of every site's counts (replicas
 * stay per site in the spec, so READY reads e.g. 6/2 for two replicas on three sites).
 *
 * A rolling update completes (currentRevision becomes the update revision) once every site
 * has settled and every pod is updated and ready (kube's completeRollingUpdate on the sums;
 * settled sites, because kube counts a pod it recreates in the same pass while these counts
 * come from the informer, where a replaced pod is briefly missing).
 *
 * `observedGeneration` reaches the generation only once every site has settled at it. kube
 * sets it as soon as the controller has seen the spec, but kubectl's `rollout status`
 * compares the (summed) ready and updated counts with the per-site `spec.replicas`, which
 * would report a multi-site rollout complete as soon as the first site is; holding
 * observedGeneration back makes it wait ("Waiting for statefulset spec update to be
 * observed...") until every site is done, then report completion.
 */
export function statefulSetStatus(input: StatefulStatusInput): StatefulSetStatusView {
  let replicas = 0;
  let readyReplicas = 0;
  let currentReplicas = 0;
  let updatedReplicas = 0;
  let settled = true;
  for (const site of input.sites.values()) {
    replicas += site.counts.replicas;
    readyReplicas += site.counts.readyReplicas;
    currentReplicas += site.counts.currentReplicas;
    updatedReplicas += site.counts.updatedReplicas;
    settled &&= site.settled;
  }
  let currentRevision = input.currentRevision;
  if (input.rollingUpdate && settled && currentRevision !== input.updateRevision && updatedReplicas === replicas && readyReplicas === replicas) {
    currentRevision = input.updateRevision;
    currentReplicas = updatedReplicas;
  }
  const status: StatefulSetStatusView = {
    ...input.previous,
    replicas,
    readyReplicas,
    currentReplicas,
    updatedReplicas,
    currentRevision,
    updateRevision: input.updateRevision,
    collisionCount: input.previous.collisionCount ?? 0,
  };
  if (settled) status.observedGeneration = input.generation;
  // Go's omitempty: zero counts are absent, as kube-apiserver returns them.
  for (const field of ['readyReplicas', 'currentReplicas', 'updatedReplicas'] as const) if (status[field] === 0) delete status[field];
  return status;
}
