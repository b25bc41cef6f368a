import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { SharedInformers } from '../manager/controller-context.js';
import { controllerRefOf } from '../runtime/owner-references.js';

type WorkloadInformers = Pick<SharedInformers, 'deployments' | 'replicaSets' | 'statefulSets' | 'jobs'>;

/**
 * The workload a pod belongs to, from the informers: its Deployment (through its ReplicaSet),
 * StatefulSet, Job or bare ReplicaSet; the pod itself when it has no controller (or the
 * controller is gone).
 */
export function workloadOfPod(informers: WorkloadInformers, cluster: ClusterRef, pod: KubeObject): KubeObject {
  const ref = controllerRefOf(pod);
  if (ref === undefined) return pod;
  if (ref.kind === 'StatefulSet') return informers.statefulSets.get(cluster, ref.name) ?? pod;
  if (ref.kind === 'Job') return informers.jobs.get(cluster, ref.name) ?? pod;
  if (ref.kind !== 'ReplicaSet') return pod;
  const rs = informers.replicaSets.get(cluster, ref.name);
  if (rs === undefined) return pod;
  const owner = controllerRefOf(rs);
  return (owner?.kind === 'Deployment' ? informers.deployments.get(cluster, owner.name) : undefined) ?? rs;
}

/** The pods of a workload (a Deployment's through its ReplicaSets), from the informers. */
export function podsOfWorkload(informers: Pick<SharedInformers, 'replicaSets' | 'pods'>, workload: KubeObject): KubeObject[] {
  const uid = workload.metadata.uid ?? '';
  if (workload.kind !== 'Deployment') return informers.pods.dependentsOf(uid);
  return informers.replicaSets.dependentsOf(uid).flatMap((rs) => informers.pods.dependentsOf(rs.metadata.uid ?? ''));
}
