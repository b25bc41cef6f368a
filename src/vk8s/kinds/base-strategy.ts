import type { Strategy } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { findResource } from '../resources.js';
import { type ResourceType } from '../../apimachinery/resource-type.js';

/** The resource of the seed's table a strategy is for. */
export function resourceOf(group: string, version: string, plural: string): ResourceType {
  const resource = findResource(group, version, plural);
  if (resource === undefined) throw new Error(`no resource ${group}/${version} ${plural} in the table`);
  return resource;
}

/**
 * A strategy with kube's common behaviour, which kind files override: no defaults, status
 * cleared on create and kept on update (for kinds that have a status), no extra rules, the
 * Background propagation default.
 */
export function baseStrategy(resource: ResourceType, overrides: Partial<Strategy> = {}): Strategy {
  const hasStatus = resource.subresources.some((s) => s.name === 'status');
  return {
    resource,
    nameRule: 'dns1123Subdomain',
    defaults: () => {},
    prepareForCreate: (object) => {
      if (hasStatus) delete object.status;
    },
    prepareForUpdate: (object, old) => {
      if (hasStatus) keepStatus(object, old);
    },
    validate: () => [],
    validateUpdate: () => [],
    selectableFields: () => ({}),
    defaultPropagation: 'Background',
    status: hasStatus ? statusOnly() : undefined,
    ...overrides,
  };
}

/** A write to the main resource does not change status. */
export function keepStatus(object: KubeObject, old: KubeObject): void {
  if (old.status === undefined) delete object.status;
  else object.status = old.status;
}

/** kube's status strategy: everything but status (and the write's bookkeeping) comes from `old`. */
export function statusOnly(): NonNullable<Strategy['status']> {
  return {
    prepareForUpdate: (object, old) => {
      for (const key of Object.keys(object)) if (key !== 'status' && key !== 'metadata') delete object[key];
      for (const [key, value] of Object.entries(old)) if (key !== 'status' && key !== 'metadata') object[key] = value;
      const { resourceVersion, managedFields } = object.metadata;
      object.metadata = { ...old.metadata, resourceVersion, managedFields };
    },
    validateUpdate: () => [],
  };
}
