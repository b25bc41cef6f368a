import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { cloneObject } from '../../apimachinery/object.js';
import { validateTolerations } from './pod-spec-scheduling.js';
import { inclusiveRangeError } from './pod-spec-syntax.js';
import type { Container, PodSpec, Toleration } from '../../api/pod-spec-types.js';
import { semanticEqual } from './workload-common.js';

/**
 * ValidatePodUpdate (core validation, 1.17): a pod's spec is immutable except container and
 * init container images, activeDeadlineSeconds (set, or lowered) and added tolerations.
 * kube appends a go-cmp diff of the spec to the Forbidden message; that diff is not reproduced.
 */
export function validatePodUpdate(spec: PodSpec, old: PodSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    const now = spec[list] ?? [];
    const before = old[list] ?? [];
    if (now.length !== before.length) return [...causes, fieldError.forbidden(`spec.${list}`, 'pod updates may not add or remove containers')];
    causes.push(...validateImages(now, `spec.${list}`));
  }
  const deadline = spec.activeDeadlineSeconds;
  const oldDeadline = old.activeDeadlineSeconds;
  if (deadline != null) {
    if (deadline < 0 || deadline > 2147483647) return [...causes, fieldError.invalid('spec.activeDeadlineSeconds', deadline, inclusiveRangeError(0, 2147483647))];
    if (oldDeadline != null && oldDeadline < deadline) return [...causes, fieldError.invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value')];
  } else if (oldDeadline != null) {
    causes.push(fieldError.invalid('spec.activeDeadlineSeconds', 'null', 'must not update from a positive integer to nil value'));
  }
  const munged = cloneObject(spec);
  for (const list of ['containers', 'initContainers'] as const) {
    (munged[list] ?? []).forEach((container, i) => {
      const image = old[list]?.[i]?.image;
      if (image == null) delete container.image;
      else container.image = image;
    });
  }
  if (oldDeadline == null) delete munged.activeDeadlineSeconds;
  else munged.activeDeadlineSeconds = oldDeadline;
  if (old.tolerations == null) delete munged.tolerations;
  else munged.tolerations = old.tolerations;
  causes.push(...validateOnlyAddedTolerations(spec.tolerations ?? [], old.tolerations ?? []));
  if (!semanticEqual(munged, old)) {
    causes.push(
      fieldError.forbidden(
        'spec',
        'pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)',
      ),
    );
  }
  return causes;
}

function validateImages(containers: readonly Container[], field: string): StatusCause[] {
  return containers.flatMap((container, i) => {
    const image = container.image ?? '';
    const causes: StatusCause[] = [];
    if (image === '') causes.push(fieldError.required(`${field}[${i}].image`));
    if (image.trim() !== image) causes.push(fieldError.invalid(`${field}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    return causes;
  });
}

/** validateOnlyAddedTolerations: every old toleration is still there (its tolerationSeconds may change). */
function validateOnlyAddedTolerations(tolerations: readonly Toleration[], old: readonly Toleration[]): StatusCause[] {
  const withoutSeconds = (t: Toleration): Toleration => ({ ...t, tolerationSeconds: undefined });
  for (const before of old) {
    if (!tolerations.some((t) => semanticEqual(withoutSeconds(t), withoutSeconds(before)))) {
      return [fieldError.forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds')];
    }
  }
  return validateTolerations(tolerations, 'spec.tolerations');
}
