import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { AdmissionHook } from '../../vk8s/http/admission-hook.js';
import { allowedFlavorValues, type FlavorSource } from './flavor-catalog.js';
import { validateSeedAnnotations } from './annotation-admission.js';
import { FLAVORED_KINDS, validateFlavorAnnotations } from './flavor-admission.js';

/**
 * The admission hook refusing objects whose seed annotations are invalid: 422 Invalid naming
 * the annotation and what it must be — flavors (tiny, medium, large and the tenant's and the
 * platform's workload_flavor names, or the container the template lacks), placement
 * references (`svc.io/sites`, `svc.io/virtual-sites`) and a Service's proxy annotations.
 */
export function createSeedAnnotationAdmission(source: FlavorSource): AdmissionHook {
  return ({ cluster, resource, object, old }) => {
    const causes = validateSeedAnnotations(object, old);
    if (FLAVORED_KINDS.has(object.kind)) causes.push(...validateFlavorAnnotations(object, { allowed: allowedFlavorValues(source, cluster.tenant), ...(old === undefined ? {} : { old }) }));
    if (causes.length > 0) throw StatusError.invalid({ kind: resource.kind, group: resource.group }, object.metadata.name ?? object.metadata.generateName ?? '', causes);
  };
}
