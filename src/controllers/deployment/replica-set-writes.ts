import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { LabelSelector } from '../../api/pod-spec-types.js';
import type { DeploymentSpec, ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { isOwnedBy } from '../runtime/owner-references.js';
import { SITE_STATUS_ANNOTATIONS } from './deployment-status.js';
import { isSkippedAnnotation, newReplicaSetAnnotations, replicasAnnotations, REVISION_ANNOTATION } from './deployment-annotations.js';
import { POD_TEMPLATE_HASH_LABEL, podTemplateHash } from './pod-template-hash.js';
import { sameTemplate } from './site-groups.js';

export const DEPLOYMENT_CONTROLLER = 'deployment-controller';

/** What the writes of one reconcile share. */
export interface WriteTarget {
  readonly replicaSets: GenericStore;
  readonly scope: RequestScope;
  readonly deployment: KubeObject;
  readonly events: EventRecorder;
}

/**
 * The new ReplicaSet of `deployment` on `site` (kube's getNewReplicaSet, create branch):
 * named `<deployment>-<hash>`, the hash over the template and the site; labels of the
 * template plus `pod-template-hash` and `svc.io/siteName`; the selector plus
 * `pod-template-hash`; the Deployment's annotations, the revision and the replicas
 * annotations; the Deployment as owner (controlling, when `controller`: see
 * primaryReplicaSets). Returns the created object — or, when a
 * ReplicaSet of that name with this template already belongs to the Deployment, that one;
 * `collision` when the name is taken by another.
 */
export async function createReplicaSet(
  target: WriteTarget,
  site: string,
  replicas: number,
  maxReplicas: number,
  revision: number,
  collisionCount: number | undefined,
  controller: boolean,
): Promise<{ readonly object: KubeObject; readonly existed: boolean } | 'collision'> {
  const { deployment } = target;
  const spec = specOf<DeploymentSpec>(deployment);
  const template = spec.template ?? {};
  const hash = podTemplateHash(template, site, collisionCount);
  const name = `${deployment.metadata.name ?? ''}-${hash}`;
  const templateLabels = { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH_LABEL]: hash };
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(deployment.metadata.annotations ?? {})) if (!isSkippedAnnotation(key, SITE_STATUS_ANNOTATIONS)) annotations[key] = value;
  const rs: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      labels: { ...templateLabels, [POD_SITE_LABEL]: site },
      annotations: { ...newReplicaSetAnnotations(annotations, {}, revision, SITE_STATUS_ANNOTATIONS), ...replicasAnnotations(spec.replicas ?? 0, maxReplicas) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: deployment.metadata.name ?? '', uid: deployment.metadata.uid ?? '', controller, blockOwnerDeletion: true }],
    },
    spec: {
      replicas,
      ...(spec.minReadySeconds === undefined ? {} : { minReadySeconds: spec.minReadySeconds }),
      selector: withLabel(spec.selector ?? {}, POD_TEMPLATE_HASH_LABEL, hash),
      template: { ...template, metadata: { ...template.metadata, labels: templateLabels } },
    },
  };
  target.replicaSets.strategy.defaults(rs);
  try {
    const created = await target.replicaSets.create(target.scope, rs);
    if (replicas > 0) target.events.record(target.scope.cluster, deployment, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${name} to ${replicas}`);
    return { object: created, existed: false };
  } catch (error) {
    if (!(error instanceof StatusError && error.reason === 'AlreadyExists')) throw error;
    const existing = await target.replicaSets.get(target.scope.cluster, name);
    return isOwnedBy(existing, deployment.metadata.uid) && sameTemplate(existing, template) ? { object: existing, existed: true } : 'collision';
  }
}

/** kube's scaleReplicaSetAndRecordEvent: the size and the desired/max-replicas annotations; an event when the size changed. */
export async function scaleReplicaSet(target: WriteTarget, rs: KubeObject, replicas: number, maxReplicas: number): Promise<KubeObject> {
  const desired = specOf<DeploymentSpec>(target.deployment).replicas ?? 0;
  const before = specOf<ReplicaSetSpec>(rs).replicas ?? 0;
  const name = rs.metadata.name ?? '';
  const updated = await writeReplicaSet(target, rs, (current) => {
    current.spec = { ...specOf<ReplicaSetSpec>(current), replicas };
    current.metadata.annotations = { ...(current.metadata.annotations ?? {}), ...replicasAnnotations(desired, maxReplicas) };
  });
  if (before !== replicas) target.events.record(target.scope.cluster, target.deployment, 'Normal', 'ScalingReplicaSet', `Scaled ${replicas > before ? 'up' : 'down'} replica set ${name} to ${replicas}`);
  return updated;
}

/** kube's getNewReplicaSet, existing branch: the Deployment's annotations and revision, and its minReadySeconds, on the new ReplicaSet. */
export async function syncNewReplicaSet(target: WriteTarget, rs: KubeObject, revision: number): Promise<KubeObject> {
  const spec = specOf<DeploymentSpec>(target.deployment);
  const minReady = spec.minReadySeconds;
  if (!annotationsNeedSync(rs.metadata.annotations ?? {}, target.deployment.metadata.annotations ?? {}, revision) && (specOf<ReplicaSetSpec>(rs).minReadySeconds ?? 0) === (minReady ?? 0)) return rs;
  return writeReplicaSet(target, rs, (current) => {
    current.metadata.annotations = newReplicaSetAnnotations(current.metadata.annotations ?? {}, target.deployment.metadata.annotations ?? {}, revision, SITE_STATUS_ANNOTATIONS);
    const { minReadySeconds: _old, ...rest } = specOf<ReplicaSetSpec>(current);
    current.spec = minReady === undefined ? rest : { ...rest, minReadySeconds: minReady };
  });
}

/** Whether {@link newReplicaSetAnnotations} would change anything (without building it: syncs run per site, often). */
function annotationsNeedSync(current: Readonly<Record<string, string>>, deployment: Readonly<Record<string, string>>, revision: number): boolean {
  if ((Number(current[REVISION_ANNOTATION] ?? '0') || 0) < revision) return true;
  for (const [key, value] of Object.entries(deployment)) if (current[key] !== value && !isSkippedAnnotation(key, SITE_STATUS_ANNOTATIONS)) return true;
  return false;
}

/** Makes the Deployment the controller of `rs`, or an owner only. */
export function setDeploymentController(target: WriteTarget, rs: KubeObject, controller: boolean): Promise<KubeObject> {
  return writeReplicaSet(target, rs, (current) => {
    current.metadata.ownerReferences = (current.metadata.ownerReferences ?? []).map((ref) => (ref.uid === target.deployment.metadata.uid ? { ...ref, controller } : ref));
  });
}

/** Deletes an old ReplicaSet (its pods follow through the garbage collector). */
export async function deleteReplicaSet(target: WriteTarget, rs: KubeObject): Promise<void> {
  try {
    await target.replicaSets.delete(target.scope, rs.metadata.name ?? '', { propagationPolicy: 'Background', preconditions: { uid: rs.metadata.uid ?? '' } });
  } catch (error) {
    if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
  }
}

function writeReplicaSet(target: WriteTarget, rs: KubeObject, change: (current: KubeObject) => void): Promise<KubeObject> {
  return target.replicaSets.update(
    target.scope,
    rs.metadata.name ?? '',
    (current) => {
      if (current.metadata.uid !== rs.metadata.uid) throw StatusError.conflict(target.replicaSets.ref, rs.metadata.name ?? '', 'the ReplicaSet was replaced');
      change(current);
      return current;
    },
    { retryOnConflict: true },
  );
}

/** kube's CloneSelectorAndAddLabel. */
function withLabel(selector: LabelSelector, key: string, value: string): LabelSelector {
  return { ...selector, matchLabels: { ...(selector.matchLabels ?? {}), [key]: value } };
}
