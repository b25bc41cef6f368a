import { fieldError } from '../../apimachinery/errors/status-error.js';
import { dns1123SubdomainProblems } from '../../apimachinery/validation/names.js';
import type { StatusStrategy } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { podQosClass } from '../../api/pod-spec-qos.js';
import { injectedSidecarVersion, injectSidecar, isSidecarInjected } from '../../api/sidecar-injection.js';
import { validatePodSpec } from './pod-spec-validation.js';
import { specOf } from './workload-types.js';

/**
 * The platform's binding of a pod to a node (kube's `pods/binding`, which the scheduler
 * calls): the stored pod with `spec.nodeName` and `status` taken from the write, nothing else —
 * except the workload sidecar: a write that carries it (marked `svc.io/sidecar-injected` with
 * an `edgeplane/sidecar:<version>` container) injects it into an unbound pod without one, exactly as
 * `injectSidecar` makes it (whatever else the write's containers say), and the QoS class is
 * computed again with the sidecar counted. Allowed once, while the pod is unbound and not
 * being deleted. Users never reach it: the HTTP layer routes no `binding` subresource; the
 * scheduler writes it through the pods store.
 */
export function podBindingStrategy(): StatusStrategy {
  return {
    prepareForUpdate: (object, old) => {
      const nodeName = specOf<PodSpec>(object).nodeName;
      const status = object.status;
      const unbound = (specOf<PodSpec>(old).nodeName ?? '') === '';
      const sidecarVersion = unbound && !isSidecarInjected(old) ? injectedSidecarVersion(object) : undefined;
      const { resourceVersion, managedFields } = object.metadata;
      for (const key of Object.keys(object)) if (key !== 'metadata') delete object[key];
      for (const [key, value] of Object.entries(old)) if (key !== 'metadata') object[key] = structuredClone(value);
      object.metadata = { ...old.metadata, resourceVersion, managedFields };
      const spec = { ...specOf<PodSpec>(old) };
      if (nodeName === undefined) delete spec.nodeName;
      else spec.nodeName = nodeName;
      object.spec = spec;
      if (status === undefined) delete object.status;
      else object.status = status;
      if (sidecarVersion === undefined) return;
      const injected = injectSidecar(object, sidecarVersion);
      object.metadata = injected.metadata;
      object.spec = injected.spec;
      object.status = { ...(typeof status === 'object' && status !== null ? status : {}), qosClass: podQosClass(specOf<PodSpec>(injected)) };
    },
    validateUpdate: (object: KubeObject, old: KubeObject) => {
      const nodeName = specOf<PodSpec>(object).nodeName ?? '';
      const before = specOf<PodSpec>(old).nodeName ?? '';
      if (before !== '' && before !== nodeName) return [fieldError.invalid('spec.nodeName', nodeName, `pod ${old.metadata.name ?? ''} is already assigned to node "${before}"`)];
      if (nodeName === '') return [fieldError.required('spec.nodeName')];
      if (old.metadata.deletionTimestamp !== undefined) return [fieldError.forbidden('spec.nodeName', 'pod is being deleted')];
      const injected = isSidecarInjected(object) && !isSidecarInjected(old);
      return [...dns1123SubdomainProblems(nodeName).map((p) => fieldError.invalid('spec.nodeName', nodeName, p)), ...(injected ? validatePodSpec(specOf<PodSpec>(object), 'spec') : [])];
    },
  };
}
