import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import type { ObjectReference } from './core-types.js';

/**
 * serviceaccounts: kube-apiserver 1.17's strategy: only ObjectMeta rules; the `secrets`
 * references keep nothing but their names on every write (kube's cleanSecretReferences).
 */
export const serviceAccountStrategy = baseStrategy(resourceOf('', 'v1', 'serviceaccounts'), {
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: (object) => cleanSecretReferences(object),
});

function cleanSecretReferences(object: KubeObject): void {
  if (!Array.isArray(object.secrets)) return;
  object.secrets = (object.secrets as ObjectReference[]).map((secret) => (secret.name === undefined ? {} : { name: secret.name }));
}
