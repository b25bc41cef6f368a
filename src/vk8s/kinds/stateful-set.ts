import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import { fieldError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, resourceOf } from './base-strategy.js';
import { defaultPodTemplateSpec, defaultTemplateMeta } from './pod-spec-defaults.js';
import { validateNonNegative } from './pod-spec-probes.js';
import { defaultResourceList } from '../../api/pod-spec-resources.js';
import { validatePodSpecificAnnotations } from './pod-spec-security.js';
import {
  replicatedLifecycle,
  replicasScale,
  semanticEqual,
  validateCollisionCount,
  validateNotAboveReplicas,
  validateStatusCounters,
  workloadStatusStrategy,
} from './workload-common.js';
import { goNilPointer, goPointer, goString, goStruct, invalidRendered } from './workload-go-value.js';
import { validateAnnotations, validateLabels } from './workload-labels.js';
import { validateRestartPolicyAlways } from './workload-replica-template.js';
import { checkAppsSelector, checkTemplateLabels } from './workload-selector.js';
import { ensureSpec, specOf, statusOf, type PersistentVolumeClaimTemplate, type ReplicaStatus, type StatefulSetSpec } from './workload-types.js';

/** apps/v1 SetDefaults_StatefulSet, the pod template's and the claim templates' defaults. */
function defaultStatefulSet(object: KubeObject): void {
  const spec = ensureSpec<StatefulSetSpec>(object);
  if ((spec.podManagementPolicy ?? '') === '') spec.podManagementPolicy = 'OrderedReady';
  const update = (spec.updateStrategy ??= {});
  if ((update.type ?? '') === '') {
    update.type = 'RollingUpdate';
    update.rollingUpdate ??= {};
  }
  if (update.type === 'RollingUpdate' && update.rollingUpdate != null) update.rollingUpdate.partition ??= 0;
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  defaultPodTemplateSpec((spec.template ??= {}));
  for (const claim of spec.volumeClaimTemplates ?? []) defaultClaimTemplate(claim);
}

/** core/v1 PersistentVolumeClaim defaults as they show in claim templates (volumeMode, phase). */
function defaultClaimTemplate(claim: PersistentVolumeClaimTemplate): void {
  claim.metadata = defaultTemplateMeta(claim.metadata);
  const spec = (claim.spec ??= {});
  spec.volumeMode ??= 'Filesystem';
  defaultResourceList(spec.resources?.limits);
  defaultResourceList(spec.resources?.requests);
  const status = (claim.status ??= {});
  if ((status.phase ?? '') === '') status.phase = 'Pending';
}

function validateUpdateStrategy(update: StatefulSetSpec['updateStrategy']): StatusCause[] {
  const rolling = update?.rollingUpdate;
  const hasRolling = rolling != null;
  switch (update?.type ?? '') {
    case '':
      return [fieldError.required('spec.updateStrategy')];
    case 'OnDelete':
      if (!hasRolling) return [];
      return [invalidRendered('spec.updateStrategy.rollingUpdate', goStruct('apps.RollingUpdateStatefulSetStrategy', [['Partition', String(rolling.partition ?? 0)]]), "only allowed for updateStrategy 'RollingUpdate'")];
    case 'RollingUpdate':
      return hasRolling ? validateNonNegative(rolling.partition ?? 0, 'spec.updateStrategy.rollingUpdate.partition') : [];
    default: {
      const rendered = goStruct('apps.StatefulSetUpdateStrategy', [
        ['Type', goString(update?.type ?? '')],
        ['RollingUpdate', hasRolling ? goPointer('apps.RollingUpdateStatefulSetStrategy') : goNilPointer('apps.RollingUpdateStatefulSetStrategy')],
      ]);
      return [invalidRendered('spec.updateStrategy', rendered, "must be 'RollingUpdate' or 'OnDelete'")];
    }
  }
}

/**
 * ValidateStatefulSetSpec (apps validation, 1.17). As in 1.17, the pod template's spec is
 * not validated beyond its restart policy and deadline (only its labels and annotations).
 */
function validateStatefulSetSpec(spec: StatefulSetSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = spec.podManagementPolicy ?? '';
  if (policy === '') causes.push(fieldError.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') causes.push(fieldError.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  causes.push(...validateUpdateStrategy(spec.updateStrategy));
  causes.push(...validateNonNegative(spec.replicas, 'spec.replicas'));
  const selector = checkAppsSelector(spec.selector, 'statefulset', '');
  causes.push(...selector.causes);
  const template = spec.template ?? {};
  if (selector.selector != null) {
    causes.push(...checkTemplateLabels(selector.selector, template, 'spec.template'));
    causes.push(...validateLabels(template.metadata?.labels, 'spec.template.labels'));
    causes.push(...validateAnnotations(template.metadata?.annotations, 'spec.template.annotations'));
    causes.push(...validatePodSpecificAnnotations(template.metadata?.annotations, template.spec ?? {}, 'spec.template.annotations'));
  }
  causes.push(...validateRestartPolicyAlways(template.spec?.restartPolicy, 'spec.template.spec.restartPolicy'));
  const deadline = template.spec?.activeDeadlineSeconds;
  if (deadline != null) causes.push(fieldError.invalid('spec.template.spec.activeDeadlineSeconds', deadline, 'must not be specified'));
  return causes;
}

/** ValidateStatefulSetUpdate: only replicas, template and updateStrategy may change. */
function validateStatefulSetUpdate(spec: StatefulSetSpec, old: StatefulSetSpec): StatusCause[] {
  const fixed = (s: StatefulSetSpec) => ({ ...s, replicas: undefined, template: undefined, updateStrategy: undefined });
  if (semanticEqual(fixed(spec), fixed(old))) return [];
  return [fieldError.forbidden('spec', "updates to statefulset spec for fields other than 'replicas', 'template', and 'updateStrategy' are forbidden")];
}

/** ValidateStatefulSetStatusUpdate. */
function validateStatefulSetStatus(object: KubeObject, old: KubeObject): StatusCause[] {
  const status = statusOf<ReplicaStatus>(object);
  const causes = validateStatusCounters(status, ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'observedGeneration', 'collisionCount']);
  causes.push(...validateNotAboveReplicas(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas']));
  return [...causes, ...validateCollisionCount(object, old)];
}

const templateSpec = (object: KubeObject) => specOf<StatefulSetSpec>(object).template?.spec;

/**
 * statefulsets (apps/v1): kube-apiserver 1.17's statefulSetStrategy. Generation starts at 1
 * and bumps on spec changes; scale reads spec/status replicas and the selector.
 */
export const statefulSetStrategy = baseStrategy(resourceOf('apps', 'v1', 'statefulsets'), {
  defaults: defaultStatefulSet,
  ...replicatedLifecycle(templateSpec),
  validate: (object) => validateStatefulSetSpec(specOf<StatefulSetSpec>(object)),
  validateUpdate: (object, old) => {
    const spec = specOf<StatefulSetSpec>(object);
    return [...validateStatefulSetSpec(spec), ...validateStatefulSetUpdate(spec, specOf<StatefulSetSpec>(old))];
  },
  status: workloadStatusStrategy(validateStatefulSetStatus),
  scale: replicasScale(),
});
