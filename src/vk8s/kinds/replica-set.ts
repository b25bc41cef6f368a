import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import { fieldError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import { defaultPodTemplateSpec } from './pod-spec-defaults.js';
import { validateNonNegative } from './pod-spec-probes.js';
import {
  replicatedLifecycle,
  replicasScale,
  validateImmutable,
  validateNotAboveReplicas,
  validateStatusCounters,
  workloadStatusStrategy,
} from './workload-common.js';
import { goLabelSelector } from './workload-go-value.js';
import { validateReplicaSetTemplate } from './workload-replica-template.js';
import { checkAppsSelector } from './workload-selector.js';
import { ensureSpec, specOf, statusOf, type ReplicaSetSpec, type ReplicaStatus } from './workload-types.js';

/** apps/v1 SetDefaults_ReplicaSet: replicas 1; and the pod template's defaults. */
function defaultReplicaSet(object: KubeObject): void {
  const spec = ensureSpec<ReplicaSetSpec>(object);
  spec.replicas ??= 1;
  defaultPodTemplateSpec((spec.template ??= {}));
}

/** ValidateReplicaSetSpec (apps validation, 1.17; its empty-selector message says "deployment"). */
function validateReplicaSetSpec(spec: ReplicaSetSpec): StatusCause[] {
  const causes = [...validateNonNegative(spec.replicas, 'spec.replicas'), ...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds')];
  const selector = checkAppsSelector(spec.selector, 'deployment', 'invalid label selector');
  causes.push(...selector.causes);
  if (selector.selector != null) causes.push(...validateReplicaSetTemplate(spec.template, selector.selector, spec.replicas ?? 0, 'spec.template'));
  return causes;
}

/** ValidateReplicaSetStatus. */
function validateReplicaSetStatus(object: KubeObject): StatusCause[] {
  const status = statusOf<ReplicaStatus>(object);
  const causes = validateStatusCounters(status, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']);
  causes.push(...validateNotAboveReplicas(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']));
  if ((status.availableReplicas ?? 0) > (status.readyReplicas ?? 0)) {
    causes.push(fieldError.invalid('status.availableReplicas', status.availableReplicas ?? 0, 'cannot be greater than readyReplicas'));
  }
  return causes;
}

const templateSpec = (object: KubeObject) => specOf<ReplicaSetSpec>(object).template?.spec;

/**
 * replicasets (apps/v1): kube-apiserver 1.17's rsStrategy. Generation starts at 1 and bumps
 * on spec changes; the selector is immutable; `status.replicas` is a field-selector field.
 */
export const replicaSetStrategy = baseStrategy(resourceOf('apps', 'v1', 'replicasets'), {
  defaults: defaultReplicaSet,
  ...replicatedLifecycle(templateSpec),
  validate: (object) => validateReplicaSetSpec(specOf<ReplicaSetSpec>(object)),
  validateUpdate: (object, old) => {
    const selector = specOf<ReplicaSetSpec>(object).selector;
    return [
      ...validateReplicaSetSpec(specOf<ReplicaSetSpec>(object)),
      ...validateImmutable(selector, specOf<ReplicaSetSpec>(old).selector, 'spec.selector', goLabelSelector(selector)),
    ];
  },
  selectableFields: (object) => ({ 'status.replicas': String(statusOf<ReplicaStatus>(object).replicas ?? 0) }),
  status: workloadStatusStrategy(validateReplicaSetStatus),
  scale: replicasScale(),
});
