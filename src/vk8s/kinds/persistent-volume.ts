import { baseStrategy, resourceOf } from './base-strategy.js';
import { defaultPersistentVolume, validatePersistentVolume, validatePersistentVolumeUpdate } from './core-volume-rules.js';

/**
 * persistentvolumes: kube-apiserver 1.17's strategy (cluster-scoped): reclaim policy Retain
 * and volumeMode Filesystem by default, status `{phase: Pending}` on create and kept on
 * update, capacity (storage only, positive), access modes, exactly one volume source, the
 * source immutable. `name` is a field-selector field (kept by kube for compatibility).
 */
export const persistentVolumeStrategy = baseStrategy(resourceOf('', 'v1', 'persistentvolumes'), {
  defaults: defaultPersistentVolume,
  prepareForCreate: (object) => {
    object.status = { phase: 'Pending' };
  },
  validate: (object) => validatePersistentVolume(object),
  validateUpdate: (object, old) => validatePersistentVolumeUpdate(object, old),
  selectableFields: (object) => ({ name: object.metadata.name ?? '' }),
});
