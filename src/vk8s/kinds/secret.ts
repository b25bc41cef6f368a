import { baseStrategy, resourceOf } from './base-strategy.js';
import { defaultSecret, secretType, validateSecret, validateSecretUpdate } from './core-secret-rules.js';

/**
 * secrets: kube-apiserver 1.17's strategy: type Opaque by default, `stringData` merged into
 * `data` on every write, key and size rules, the per-type required keys, an immutable type;
 * `type` is a field-selector field.
 */
export const secretStrategy = baseStrategy(resourceOf('', 'v1', 'secrets'), {
  defaults: defaultSecret,
  validate: (object) => validateSecret(object),
  validateUpdate: (object, old) => validateSecretUpdate(object, old),
  selectableFields: (object) => ({ type: secretType(object) }),
});
