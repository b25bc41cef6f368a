import type { Quantity } from '../apimachinery/quantity/quantity.js';
import { parseQuantity } from './pod-spec-resources.js';
import type { PodSpec, ResourceList } from './pod-spec-types.js';

export type QosClass = 'Guaranteed' | 'Burstable' | 'BestEffort';

/** Positive cpu/memory quantities of a list. */
function computeResources(list: ResourceList | null | undefined): Map<string, Quantity> {
  const result = new Map<string, Quantity>();
  for (const name of ['cpu', 'memory']) {
    const quantity = parseQuantity(list?.[name]);
    if (quantity != null && quantity.nanos > 0n) result.set(name, quantity);
  }
  return result;
}

/**
 * GetPodQOS (core helper qos, 1.17), over containers and init containers: BestEffort without
 * any cpu/memory request or limit; Guaranteed when every container limits both and the summed
 * requests equal the summed limits; Burstable otherwise.
 */
export function podQosClass(spec: PodSpec): QosClass {
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  let guaranteed = true;
  for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    for (const [name, quantity] of computeResources(container.resources?.requests)) requests.set(name, (requests.get(name) ?? 0n) + quantity.nanos);
    const containerLimits = computeResources(container.resources?.limits);
    for (const [name, quantity] of containerLimits) limits.set(name, (limits.get(name) ?? 0n) + quantity.nanos);
    if (!containerLimits.has('cpu') || !containerLimits.has('memory')) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return 'BestEffort';
  if (guaranteed) {
    for (const [name, request] of requests) {
      if (limits.get(name) !== request) {
        guaranteed = false;
        break;
      }
    }
  }
  return guaranteed && requests.size === limits.size ? 'Guaranteed' : 'Burstable';
}
