import { fieldError } from '../../apimachinery/errors/status-error.js';
import { baseStrategy, keepStatus, resourceOf, statusOnly } from './base-strategy.js';
import { defaultPersistentVolumeClaim, validatePersistentVolumeClaim, validatePersistentVolumeClaimUpdate } from './core-volume-rules.js';
import { quantityOf, validateBasicResource } from './core-fields.js';
import { view, type IntOrString } from './core-types.js';

/**
 * persistentvolumeclaims: kube-apiserver 1.17's strategy: volumeMode Filesystem by default,
 * status `{phase: Pending}` on create (what kube's read-time defaulting shows) and kept on
 * update, the spec rules, a spec fixed after creation except storage growth of bound claims.
 * `name` is a field-selector field (kept by kube for compatibility).
 */
export const persistentVolumeClaimStrategy = baseStrategy(resourceOf('', 'v1', 'persistentvolumeclaims'), {
  defaults: defaultPersistentVolumeClaim,
  prepareForCreate: (object) => {
    object.status = { phase: 'Pending' };
  },
  prepareForUpdate: keepStatus,
  validate: (object) => validatePersistentVolumeClaim(object),
  validateUpdate: (object, old) => validatePersistentVolumeClaimUpdate(object, old),
  selectableFields: (object) => ({ name: object.metadata.name ?? '' }),
  status: {
    ...statusOnly(),
    validateUpdate: (object) => {
      const capacity = view<{ capacity?: Record<string, IntOrString> }>(object, 'status').capacity ?? {};
      return Object.entries(capacity).flatMap(([name, value]) => {
        const quantity = quantityOf(value);
        const path = `status.capacity[${name}]`;
        return quantity === undefined ? [fieldError.invalid(path, value, 'must be a valid resource quantity')] : validateBasicResource(quantity, path);
      });
    },
  },
});
