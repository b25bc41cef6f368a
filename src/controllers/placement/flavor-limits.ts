import { Quantity, QuantityError } from '../../apimachinery/quantity/quantity.js';
import type { SiteType } from '../../site-api/site-model.js';
import type { QuantityValue, ResourceRequirements } from '../../api/pod-spec-types.js';
import type { Flavor } from './flavors.js';

/** The flavor's value of each resource it limits. */
function flavorQuantities(flavor: Flavor): Array<[string, Quantity]> {
  const quantities: Array<[string, Quantity]> = [
    ['cpu', Quantity.fromMilli(flavor.cpuMillis)],
    ['memory', Quantity.parse(`${flavor.memoryMiB}Mi`)],
  ];
  if (flavor.ephemeralStorageMiB !== undefined) quantities.push(['ephemeral-storage', Quantity.parse(`${flavor.ephemeralStorageMiB}Mi`)]);
  return quantities;
}

function parse(value: QuantityValue | undefined): Quantity | undefined {
  if (value === undefined) return undefined;
  try {
    return Quantity.parse(String(value));
  } catch (error) {
    if (error instanceof QuantityError) return undefined;
    throw error;
  }
}

/**
 * A container's resources on a site of `siteType` with `flavor` (seed, Limits and rules 7–8):
 * on a regional edge the flavor sets the limit of CPU and memory (and ephemeral storage
 * when it has one), a container limit above it is lowered to it, one below it is kept; on a
 * customer edge the container's limits are honoured and the flavor fills only those it
 * lacks. Either way every container ends with CPU and memory limits, and a request above
 * its limit is lowered to the limit (a pod asking more than its limit is invalid). Pure.
 */
export function limitResources(resources: ResourceRequirements | undefined, flavor: Flavor, siteType: SiteType): ResourceRequirements {
  const limits: Record<string, QuantityValue> = { ...(resources?.limits ?? {}) };
  const requests: Record<string, QuantityValue> = { ...(resources?.requests ?? {}) };
  for (const [resource, cap] of flavorQuantities(flavor)) {
    const own = parse(limits[resource]);
    const keepOwn = own !== undefined && (siteType === 'CUSTOMER_EDGE' || own.compare(cap) <= 0);
    const limit = keepOwn ? own : cap;
    if (!keepOwn) limits[resource] = cap.toString();
    const request = parse(requests[resource]);
    if (request !== undefined && request.compare(limit) > 0) requests[resource] = limits[resource] as QuantityValue;
  }
  return { ...resources, limits, ...(Object.keys(requests).length > 0 || resources?.requests !== undefined ? { requests } : {}) };
}
