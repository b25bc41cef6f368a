import { PLATFORM_TENANT } from '../../auth/principal.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { PlacementConfigIndex } from './config-index.js';
import { BUILTIN_FLAVOR_NAMES, BUILTIN_FLAVORS, flavorOfRecord, isBuiltinFlavor, type Flavor, type FlavorLookup } from './flavors.js';

/** What flavor resolution reads from the config index. */
export type FlavorSource = Pick<PlacementConfigIndex, 'flavorObject' | 'flavorNames' | 'virtualK8s'>;

/**
 * How a tenant's annotation values name flavors: tiny, medium and large are the seed's
 * (fixed values, whatever objects exist); any other name is a workload_flavor object in the
 * tenant's `shared` namespace, else in the platform's `svc-io-shared`.
 */
export function flavorLookup(source: FlavorSource, tenant: string): FlavorLookup {
  return (value) => {
    if (isBuiltinFlavor(value)) return BUILTIN_FLAVORS[value];
    const record = source.flavorObject(tenant, 'shared', value) ?? source.flavorObject(PLATFORM_TENANT, 'svc-io-shared', value);
    return record === undefined ? undefined : flavorOfRecord(record);
  };
}

/** The values a tenant's flavor annotations may take: the seed's three, then its and the platform's workload_flavor names. */
export function allowedFlavorValues(source: FlavorSource, tenant: string): string[] {
  return [...BUILTIN_FLAVOR_NAMES, ...source.flavorNames(tenant).filter((n) => !isBuiltinFlavor(n))];
}

/** The cluster's default flavor (its virtual_k8s `default_flavor_ref`), if it names one that exists. */
export function clusterDefaultFlavor(source: FlavorSource, cluster: ClusterRef): Flavor | undefined {
  const ref = source.virtualK8s(cluster)?.defaultFlavorRef;
  if (ref === undefined) return undefined;
  const record = source.flavorObject(ref.tenant, ref.namespace, ref.name);
  if (record !== undefined) return flavorOfRecord(record);
  return ref.tenant === PLATFORM_TENANT && isBuiltinFlavor(ref.name) ? BUILTIN_FLAVORS[ref.name] : undefined;
}
