import type { Logger } from '../../observability/logger.js';
import type { EndpointSubset } from '../../vk8s/kinds/core-types.js';
import { semanticEqual } from '../../vk8s/kinds/workload-common.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { hasReason, type ObjectWriter } from '../controller-kit/object-writer.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Informer } from '../runtime/object-informer.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { endpointSubsets, selects, serviceSelector } from './endpoint-subsets.js';

const COMPONENT = 'endpoint-controller';

export interface EndpointsReconcilerDeps {
  readonly services: Informer;
  readonly pods: Informer;
  readonly endpoints: Informer;
  readonly writer: ObjectWriter;
  readonly events: EventRecorder;
  readonly logger: Logger;
}

const subsetsOf = (endpoints: KubeObject): EndpointSubset[] => (Array.isArray(endpoints.subsets) ? (endpoints.subsets as EndpointSubset[]) : []);

/** The Endpoints object of `service` with `subsets` (labels: the Service's, as kube). */
function endpointsFor(service: KubeObject, subsets: EndpointSubset[], base?: KubeObject): KubeObject {
  const labels = service.metadata.labels;
  const metadata = { ...(base?.metadata ?? { name: service.metadata.name ?? '' }) };
  if (labels === undefined || Object.keys(labels).length === 0) delete metadata.labels;
  else metadata.labels = { ...labels };
  const object: KubeObject = { ...(base ?? {}), apiVersion: 'v1', kind: 'Endpoints', metadata };
  if (subsets.length > 0) object.subsets = subsets;
  else delete object.subsets;
  return object;
}

/**
 * One reconcile of one Service (kube's endpoints controller syncService): a Service with a
 * selector gets an Endpoints object of its name listing the matching pods of every site; a
 * Service without one keeps whatever Endpoints exist; a deleted Service's Endpoints go. The
 * object is written only when its subsets or labels changed.
 */
export function endpointsReconciler(deps: EndpointsReconcilerDeps): (key: ObjectKey) => Promise<ReconcileResult | void> {
  return async (key) => {
    const service = deps.services.get(key.cluster, key.name);
    const current = deps.endpoints.get(key.cluster, key.name);
    if (service === undefined) {
      if (current !== undefined) await deps.writer.delete(key.cluster, key.name, current.metadata.uid ?? '');
      return;
    }
    const selector = serviceSelector(service);
    if (selector === undefined || service.metadata.deletionTimestamp !== undefined) return;
    const pods = deps.pods.list(key.cluster).filter((pod) => selects(selector, pod.metadata.labels));
    const subsets = endpointSubsets(service, pods);
    try {
      if (current === undefined) {
        await deps.writer.create(key.cluster, endpointsFor(service, subsets));
        return;
      }
      if (semanticEqual(subsetsOf(current), subsets) && semanticEqual(current.metadata.labels, service.metadata.labels)) return;
      await deps.writer.update(key.cluster, key.name, current.metadata.uid ?? '', (latest) => {
        if (semanticEqual(subsetsOf(latest), subsets) && semanticEqual(latest.metadata.labels, service.metadata.labels)) return undefined;
        return endpointsFor(service, subsets, latest);
      });
    } catch (error) {
      if (!hasReason(error, 'AlreadyExists')) {
        deps.events.record(key.cluster, service, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${key.cluster.namespace}/${key.name}: ${error instanceof Error ? error.message : String(error)}`, COMPONENT);
      }
      throw error;
    }
  };
}

/** The Services of a pod's cluster that select it (before or after a change). */
export function servicesSelecting(services: readonly KubeObject[], labels: ReadonlyArray<Readonly<Record<string, string>> | undefined>): KubeObject[] {
  return services.filter((service) => {
    const selector = serviceSelector(service);
    return selector !== undefined && labels.some((l) => selects(selector, l));
  });
}
