import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { PlacedSite } from '../placement/placed-site.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { PodTemplateFor } from '../manager/controller-context.js';

/** kube's SimpleNameGenerator keeps generateName bases to 58 characters (63 with the 5 random ones). */
const MAX_GENERATE_NAME_BASE = 58;

export interface PodWriter {
  readonly pods: GenericStore;
  readonly scope: RequestScope;
  readonly events: EventRecorder;
  readonly podTemplateFor: PodTemplateFor;
}

/**
 * The pod a ReplicaSet runs on `site`: the site's template of the workload (flavors, site
 * environment and label, through `podTemplateFor`), named `<rs>-<5 random characters>`,
 * labelled `svc.io/siteName`, controlled by the ReplicaSet. Throws when the template cannot
 * be made.
 */
export function podFor(writer: PodWriter, rs: KubeObject, workload: KubeObject, template: PodTemplateSpec, site: PlacedSite): KubeObject {
  const sited = writer.podTemplateFor(writer.scope.cluster, workload, cloneObject(template), site);
  const meta = sited.metadata ?? {};
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${rs.metadata.name ?? ''}-`.slice(0, MAX_GENERATE_NAME_BASE),
      labels: { ...(meta.labels ?? {}), [POD_SITE_LABEL]: site.name },
      ...(meta.annotations == null || Object.keys(meta.annotations).length === 0 ? {} : { annotations: { ...meta.annotations } }),
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name ?? '', uid: rs.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: cloneObject(sited.spec ?? {}),
  };
  writer.pods.strategy.defaults(pod);
  return pod;
}

/** Creates the pod; SuccessfulCreate or FailedCreate on the ReplicaSet. Resolves to the error, if any. */
export async function createPod(writer: PodWriter, rs: KubeObject, pod: KubeObject): Promise<Error | undefined> {
  try {
    const created = await writer.pods.create(writer.scope, pod);
    writer.events.record(writer.scope.cluster, rs, 'Normal', 'SuccessfulCreate', `Created pod: ${created.metadata.name ?? ''}`);
    return undefined;
  } catch (error) {
    return failedCreate(writer, rs, error);
  }
}

export function failedCreate(writer: PodWriter, rs: KubeObject, error: unknown): Error {
  const failure = error instanceof Error ? error : new Error(String(error));
  writer.events.record(writer.scope.cluster, rs, 'Warning', 'FailedCreate', `Error creating: ${failure.message}`);
  return failure;
}

/** Deletes the pod (graceful, the pod's own grace period); SuccessfulDelete or FailedDelete. A pod already gone is no error. */
export async function deletePod(writer: PodWriter, rs: KubeObject, pod: KubeObject): Promise<Error | undefined> {
  const name = pod.metadata.name ?? '';
  try {
    await writer.pods.delete(writer.scope, name, { preconditions: { uid: pod.metadata.uid ?? '' } });
    writer.events.record(writer.scope.cluster, rs, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name}`);
    return undefined;
  } catch (error) {
    if (error instanceof StatusError && error.reason === 'NotFound') return undefined;
    const failure = error instanceof Error ? error : new Error(String(error));
    writer.events.record(writer.scope.cluster, rs, 'Warning', 'FailedDelete', `Error deleting: ${failure.message}`);
    return failure;
  }
}

/**
 * kube's slowStartBatch: runs `count` calls in batches of 1, 2, 4, … (each batch at once),
 * stopping after the first batch with a failure. Returns how many ran and the first error.
 */
export async function slowStartBatch(count: number, call: () => Promise<Error | undefined>): Promise<{ ran: number; error?: Error }> {
  let ran = 0;
  for (let size = Math.min(count, 1); size > 0; size = Math.min(2 * size, count - ran)) {
    const errors = (await Promise.all(Array.from({ length: size }, call))).filter((e): e is Error => e !== undefined);
    ran += size;
    if (errors.length > 0) return { ran, error: errors[0] };
  }
  return { ran };
}
