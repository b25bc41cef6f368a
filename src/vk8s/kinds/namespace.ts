import { fieldError } from '../../apimachinery/errors/status-error.js';
import { validateKubeFinalizerName } from '../../apimachinery/validation/object-meta.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, keepStatus, resourceOf, statusOnly } from './base-strategy.js';
import { ensure, view } from './core-types.js';

interface NamespaceSpec {
  finalizers?: string[];
}

/**
 * namespaces: kube-apiserver 1.17's strategy (cluster-scoped, names are DNS-1123 labels):
 * status `{phase: Active}` and the `kubernetes` finalizer on create; spec.finalizers and
 * status only change through their own subresources; DELETE answers with the object;
 * `status.phase` (and the legacy `name`) are field-selector fields.
 */
export const namespaceStrategy = baseStrategy(resourceOf('', 'v1', 'namespaces'), {
  nameRule: 'dns1123Label',
  defaults: (object) => {
    const status = view<{ phase?: string }>(object, 'status');
    if (object.status !== undefined && (status.phase ?? '') === '') status.phase = 'Active';
  },
  prepareForCreate: (object) => {
    object.status = { phase: 'Active' };
    const spec = ensure<NamespaceSpec>(object, 'spec');
    const finalizers = spec.finalizers ?? [];
    if (!finalizers.includes('kubernetes')) spec.finalizers = [...finalizers, 'kubernetes'];
  },
  prepareForUpdate: (object, old) => {
    const finalizers = view<NamespaceSpec>(old, 'spec').finalizers;
    const spec = ensure<NamespaceSpec>(object, 'spec');
    if (finalizers === undefined) delete spec.finalizers;
    else spec.finalizers = finalizers;
    keepStatus(object, old);
  },
  validate: (object) => (view<NamespaceSpec>(object, 'spec').finalizers ?? []).flatMap((f) => validateKubeFinalizerName(f, 'spec.finalizers')),
  validateUpdate: () => [],
  selectableFields: (object) => ({ 'status.phase': phaseOf(object), name: object.metadata.name ?? '' }),
  status: {
    ...statusOnly(),
    validateUpdate: (object) => {
      const phase = phaseOf(object);
      if (object.metadata.deletionTimestamp === undefined) {
        return phase === 'Active' ? [] : [fieldError.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
      }
      return phase === 'Terminating' ? [] : [fieldError.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
    },
  },
  returnDeletedObject: true,
});

function phaseOf(object: KubeObject): string {
  return view<{ phase?: string }>(object, 'status').phase ?? '';
}
