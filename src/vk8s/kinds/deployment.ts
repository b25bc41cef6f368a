import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import { fieldError } from '../../apimachinery/errors/status-error.js';
import type { StatusStrategy } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import { defaultPodTemplateSpec } from './pod-spec-defaults.js';
import { validateNonNegative } from './pod-spec-probes.js';
import { percentProblems } from './pod-spec-syntax.js';
import type { IntOrString } from '../../api/pod-spec-types.js';
import {
  replicatedLifecycle,
  replicasScale,
  validateCollisionCount,
  validateImmutable,
  validateNotAboveReplicas,
  validateStatusCounters,
  workloadStatusStrategy,
} from './workload-common.js';
import { goIntOrString, goLabelSelector, goNilPointer, goPointer, goString, goStruct, invalidRendered, notSupportedRendered } from './workload-go-value.js';
import { validateReplicaSetTemplate } from './workload-replica-template.js';
import { checkAppsSelector } from './workload-selector.js';
import { ensureSpec, specOf, statusOf, type DeploymentSpec, type ReplicaStatus } from './workload-types.js';

/** apps/v1 SetDefaults_Deployment and the pod template's defaults. */
function defaultDeployment(object: KubeObject): void {
  const spec = ensureSpec<DeploymentSpec>(object);
  spec.replicas ??= 1;
  const strategy = (spec.strategy ??= {});
  if ((strategy.type ?? '') === '') strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = (strategy.rollingUpdate ??= {});
    rolling.maxUnavailable ??= '25%';
    rolling.maxSurge ??= '25%';
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  defaultPodTemplateSpec((spec.template ??= {}));
}

/** ValidatePositiveIntOrPercent: a percent string or a non-negative integer. */
function validateIntOrPercent(value: IntOrString | undefined, field: string): StatusCause[] {
  if (typeof value === 'string') return percentProblems(value).map((p) => invalidRendered(field, goIntOrString(value), p));
  return validateNonNegative(value ?? 0, field);
}

/** getIntOrPercentValue: the number of a percent or an integer (0 when neither parses). */
function intOrPercentValue(value: IntOrString | undefined): number {
  if (typeof value === 'number') return value;
  if (value == null) return 0;
  const match = /^([0-9]+)%$/.exec(value) ?? /^([+-]?[0-9]+)$/.exec(value);
  return match === null ? 0 : Number(match[1]);
}

function validateStrategy(strategy: DeploymentSpec['strategy']): StatusCause[] {
  const field = 'spec.strategy';
  const rolling = strategy?.rollingUpdate;
  switch (strategy?.type) {
    case 'Recreate':
      return rolling == null ? [] : [fieldError.forbidden(`${field}.rollingUpdate`, "may not be specified when strategy `type` is 'Recreate'")];
    case 'RollingUpdate': {
      if (rolling == null) return [fieldError.required(`${field}.rollingUpdate`, 'this should be defaulted and never be nil')];
      const at = `${field}.rollingUpdate`;
      const causes = [...validateIntOrPercent(rolling.maxUnavailable, `${at}.maxUnavailable`), ...validateIntOrPercent(rolling.maxSurge, `${at}.maxSurge`)];
      if (intOrPercentValue(rolling.maxUnavailable) === 0 && intOrPercentValue(rolling.maxSurge) === 0) {
        causes.push(invalidRendered(`${at}.maxUnavailable`, goIntOrString(rolling.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
      }
      if (typeof rolling.maxUnavailable === 'string' && percentProblems(rolling.maxUnavailable).length === 0 && intOrPercentValue(rolling.maxUnavailable) > 100) {
        causes.push(invalidRendered(`${at}.maxUnavailable`, goIntOrString(rolling.maxUnavailable), 'must not be greater than 100%'));
      }
      return causes;
    }
    default: {
      const rendered = goStruct('apps.DeploymentStrategy', [
        ['Type', goString(strategy?.type ?? '')],
        ['RollingUpdate', rolling == null ? goNilPointer('apps.RollingUpdateDeployment') : goPointer('apps.RollingUpdateDeployment')],
      ]);
      return [notSupportedRendered(field, rendered, ['Recreate', 'RollingUpdate'])];
    }
  }
}

/** ValidateDeploymentSpec (apps validation, 1.17). */
function validateDeploymentSpec(spec: DeploymentSpec): StatusCause[] {
  const causes = validateNonNegative(spec.replicas, 'spec.replicas');
  const selector = checkAppsSelector(spec.selector, 'deployment', 'invalid label selector');
  causes.push(...selector.causes);
  if (selector.selector != null) causes.push(...validateReplicaSetTemplate(spec.template, selector.selector, spec.replicas ?? 0, 'spec.template'));
  causes.push(...validateStrategy(spec.strategy));
  causes.push(...validateNonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  causes.push(...validateNonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  const deadline = spec.progressDeadlineSeconds;
  if (deadline != null) {
    causes.push(...validateNonNegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= (spec.minReadySeconds ?? 0)) causes.push(fieldError.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
  }
  return causes;
}

/** ValidateDeploymentStatusUpdate: counters non-negative and consistent, collisionCount never decremented. */
function validateDeploymentStatus(object: KubeObject, old: KubeObject): StatusCause[] {
  const status = statusOf<ReplicaStatus>(object);
  const causes = validateStatusCounters(status, ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount']);
  causes.push(...validateNotAboveReplicas(status, ['updatedReplicas', 'readyReplicas', 'availableReplicas']));
  if ((status.availableReplicas ?? 0) > (status.readyReplicas ?? 0)) {
    causes.push(fieldError.invalid('status.availableReplicas', status.availableReplicas ?? 0, 'cannot be greater than readyReplicas'));
  }
  return [...causes, ...validateCollisionCount(object, old)];
}

const templateSpec = (object: KubeObject) => specOf<DeploymentSpec>(object).template?.spec;

/**
 * deploymentStatusStrategy: kube 1.17 resets only spec and labels on a `/status` write, so
 * annotations written there stay — the deployment controller records the revision (and the
 * platform its per-site breakdown) that way, without bumping the generation. Other metadata
 * keeps its stored value here (the generic store validates the annotations as on any write).
 */
function deploymentStatusStrategy(): StatusStrategy {
  const base = workloadStatusStrategy(validateDeploymentStatus);
  return {
    prepareForUpdate: (object, old) => {
      const annotations = object.metadata.annotations;
      base.prepareForUpdate(object, old);
      if (annotations == null) delete object.metadata.annotations;
      else object.metadata.annotations = annotations;
    },
    validateUpdate: (object, old, context) => base.validateUpdate(object, old, context),
  };
}

/**
 * deployments (apps/v1): kube-apiserver 1.17's deploymentStrategy. Generation starts at 1 and
 * bumps on spec or annotation changes (annotations are copied to the ReplicaSets); the
 * selector is immutable; scale reads spec/status replicas and the selector.
 */
export const deploymentStrategy = baseStrategy(resourceOf('apps', 'v1', 'deployments'), {
  defaults: defaultDeployment,
  ...replicatedLifecycle(templateSpec, { bumpOnAnnotations: true }),
  validate: (object) => validateDeploymentSpec(specOf<DeploymentSpec>(object)),
  validateUpdate: (object, old) => {
    const selector = specOf<DeploymentSpec>(object).selector;
    return [
      ...validateDeploymentSpec(specOf<DeploymentSpec>(object)),
      ...validateImmutable(selector, specOf<DeploymentSpec>(old).selector, 'spec.selector', goLabelSelector(selector)),
    ];
  },
  status: deploymentStatusStrategy(),
  scale: replicasScale(),
});
