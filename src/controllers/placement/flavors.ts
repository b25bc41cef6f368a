import { CONTAINER_FLAVOR_ANNOTATION_PREFIX, FLAVOR_ANNOTATION } from '../../site-api/site-model.js';
import type { FlavorRecord } from './config-records.js';

/** Compute limits for a container: CPU in millicores, memory (and ephemeral storage) in MiB. */
export interface Flavor {
  readonly name: string;
  readonly cpuMillis: number;
  readonly memoryMiB: number;
  readonly ephemeralStorageMiB?: number;
}

export type BuiltinFlavorName = 'tiny' | 'medium' | 'large';

/** The seed's flavors (Limits, table 1). */
export const BUILTIN_FLAVORS: Readonly<Record<BuiltinFlavorName, Flavor>> = {
  tiny: { name: 'tiny', cpuMillis: 100, memoryMiB: 100 },
  medium: { name: 'medium', cpuMillis: 250, memoryMiB: 250 },
  large: { name: 'large', cpuMillis: 1000, memoryMiB: 1024 },
};

export const BUILTIN_FLAVOR_NAMES: readonly BuiltinFlavorName[] = ['tiny', 'medium', 'large'];

/** Every container's flavor when nothing names one (seed). */
const DEFAULT_FLAVOR: Flavor = BUILTIN_FLAVORS.tiny;

export function isBuiltinFlavor(name: string): name is BuiltinFlavorName {
  return (BUILTIN_FLAVOR_NAMES as readonly string[]).includes(name);
}

/** A workload_flavor object as a flavor (vCPUs to millicores). */
export function flavorOfRecord(record: FlavorRecord): Flavor {
  return {
    name: record.name,
    cpuMillis: Math.round(record.vcpus * 1000),
    memoryMiB: record.memoryMiB,
    ...(record.ephemeralStorageMiB === undefined ? {} : { ephemeralStorageMiB: record.ephemeralStorageMiB }),
  };
}

/** The flavor of each container of a pod: the ones named, and the pod's for the others. */
export interface ContainerFlavors {
  /** The flavor of containers not in `containers`. */
  readonly pod: Flavor;
  readonly containers: Readonly<Record<string, Flavor>>;
}

export function flavorOfContainer(flavors: ContainerFlavors, container: string): Flavor {
  return Object.hasOwn(flavors.containers, container) ? (flavors.containers[container] as Flavor) : flavors.pod;
}

/** Finds the flavor an annotation value names (builtin or workload_flavor object), for one tenant. */
export type FlavorLookup = (value: string) => Flavor | undefined;

/**
 * Resolves every container's flavor: `svc.io/workload-flavor-<container>` >
 * `svc.io/workload-flavor` > the cluster's default (virtual_k8s `default_flavor_ref`) >
 * tiny. A value that names no flavor (admission refuses those; a workload_flavor object may
 * have been deleted since) is passed over for the next rule. Pure.
 */
export function resolveContainerFlavors(input: {
  readonly annotations: Readonly<Record<string, string>> | undefined;
  readonly containerNames: readonly string[];
  readonly clusterDefault: Flavor | undefined;
  readonly lookup: FlavorLookup;
}): ContainerFlavors {
  const annotations = input.annotations ?? {};
  const named = (value: string | undefined): Flavor | undefined => (value === undefined ? undefined : input.lookup(value.trim()));
  const pod = named(annotations[FLAVOR_ANNOTATION]) ?? input.clusterDefault ?? DEFAULT_FLAVOR;
  const containers: Record<string, Flavor> = {};
  for (const name of input.containerNames) {
    const flavor = named(annotations[CONTAINER_FLAVOR_ANNOTATION_PREFIX + name]);
    if (flavor !== undefined) containers[name] = flavor;
  }
  return { pod, containers };
}
