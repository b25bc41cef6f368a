import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { AdmissionHook } from '../../vk8s/http/admission-hook.js';
import { allowedFlavorValues, type FlavorSource } from './flavor-catalog.js';
import { FLAVORED_KINDS, validateFlavorAnnotations } from './flavor-admission.js';

/**
 * The admission hook refusing workloads with invalid flavor annotations: 422 Invalid naming
 * the annotation and the allowed values (tiny, medium, large and the tenant's and the
 * platform's workload_flavor names), or the container the template lacks.
 */
export function createFlavorAdmission(source: FlavorSource): AdmissionHook {
  return ({ cluster, resource, object, old }) => {
    if (!FLAVORED_KINDS.has(object.kind)) return;
    const causes = validateFlavorAnnotations(object, { allowed: allowedFlavorValues(source, cluster.tenant), ...(old === undefined ? {} : { old }) });
    if (causes.length > 0) throw StatusError.invalid({ kind: resource.kind, group: resource.group }, object.metadata.name ?? object.metadata.generateName ?? '', causes);
  };
}
