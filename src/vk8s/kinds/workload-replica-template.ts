import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { Selector } from '../../apimachinery/labels/selector.js';
import { validatePodTemplateSpec } from './pod-spec-validation.js';
import { asRecord, type PodTemplateSpec } from '../../api/pod-spec-types.js';
import { checkTemplateLabels } from './workload-selector.js';

/**
 * ValidatePodTemplateSpecForReplicaSet (apps validation, 1.17), for Deployments and
 * ReplicaSets: labels match the selector, the whole pod template is valid, replicated pods
 * may only share read-only GCE disks, restartPolicy is Always, no activeDeadlineSeconds.
 */
export function validateReplicaSetTemplate(template: PodTemplateSpec | undefined, selector: Selector | 'nothing', replicas: number, field: string): StatusCause[] {
  const spec = template?.spec ?? {};
  const causes = checkTemplateLabels(selector, template, field);
  causes.push(...validatePodTemplateSpec(template ?? {}, field));
  if (replicas > 1) {
    (spec.volumes ?? []).forEach((volume, i) => {
      const disk = asRecord(volume.gcePersistentDisk);
      if (disk != null && disk.readOnly !== true) {
        causes.push(fieldError.invalid(`${field}.spec.volumes[${i}].gcePersistentDisk.readOnly`, false, 'must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'));
      }
    });
  }
  causes.push(...validateRestartPolicyAlways(spec.restartPolicy, `${field}.spec.restartPolicy`));
  if (spec.activeDeadlineSeconds != null) causes.push(fieldError.invalid(`${field}.spec.activeDeadlineSeconds`, spec.activeDeadlineSeconds, 'must not be specified'));
  return causes;
}

/** `Unsupported value: "OnFailure": supported values: "Always"`. */
export function validateRestartPolicyAlways(policy: string | undefined, field: string): StatusCause[] {
  return policy === 'Always' ? [] : [fieldError.notSupported(field, policy ?? '', ['Always'])];
}
