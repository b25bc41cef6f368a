import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { defaultPodTemplateSpec } from './pod-spec-defaults.js';
import { validateNonNegative } from './pod-spec-probes.js';
import { validatePodTemplateSpec } from './pod-spec-validation.js';
import { goLabelSelector, goStringMap, invalidRendered } from './workload-go-value.js';
import { selectorMatches, selectorRequirements, validateLabelSelector } from './workload-labels.js';
import { checkTemplateLabels } from './workload-selector.js';
import type { JobSpec } from './workload-types.js';

/** Job specs, shared by Jobs and CronJobs' job templates (batch validation, 1.17). */

/** batch/v1 SetDefaults_Job's spec part: completions and parallelism 1 when both unset, backoffLimit 6. */
export function defaultJobSpec(spec: JobSpec): void {
  if (spec.completions == null && spec.parallelism == null) spec.completions = 1;
  spec.parallelism ??= 1;
  spec.backoffLimit ??= 6;
}

/** The template's defaults (also for CronJob job templates, which get no SetDefaults_Job). */
export function defaultJobTemplate(spec: JobSpec): void {
  defaultPodTemplateSpec((spec.template ??= {}));
}

/** validateJobSpec: counters non-negative, a valid pod template whose restartPolicy is OnFailure or Never. */
export function validateJobSpecCommon(spec: JobSpec, field: string): StatusCause[] {
  const causes = [
    ...validateNonNegative(spec.parallelism, `${field}.parallelism`),
    ...validateNonNegative(spec.completions, `${field}.completions`),
    ...validateNonNegative(spec.activeDeadlineSeconds, `${field}.activeDeadlineSeconds`),
    ...validateNonNegative(spec.backoffLimit, `${field}.backoffLimit`),
    ...validateNonNegative(spec.ttlSecondsAfterFinished, `${field}.ttlSecondsAfterFinished`),
    ...validatePodTemplateSpec(spec.template ?? {}, `${field}.template`),
  ];
  const policy = spec.template?.spec?.restartPolicy ?? '';
  if (policy !== 'OnFailure' && policy !== 'Never') causes.push(fieldError.notSupported(`${field}.template.spec.restartPolicy`, policy, ['OnFailure', 'Never']));
  return causes;
}

/** ValidateJobSpec: plus a required, valid selector that matches the template's labels. */
export function validateJobSpec(spec: JobSpec): StatusCause[] {
  const causes = validateJobSpecCommon(spec, 'spec');
  if (spec.selector == null) causes.push(fieldError.required('spec.selector'));
  else causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  const selector = selectorRequirements(spec.selector);
  if (selector !== 'invalid') causes.push(...checkTemplateLabels(selector, spec.template, 'spec.template'));
  return causes;
}

/**
 * ValidateGeneratedSelector: unless manualSelector, the template carries `controller-uid` and
 * `job-name` labels with the Job's uid and name, and the selector matches them.
 */
export function validateGeneratedSelector(spec: JobSpec, uid: string, name: string): StatusCause[] {
  if (spec.manualSelector === true || spec.selector == null) return [];
  const causes: StatusCause[] = [];
  if (uid === '') causes.push(fieldError.required('metadata.uid'));
  const labels = spec.template?.metadata?.labels ?? undefined;
  for (const [key, expected] of [
    ['controller-uid', uid],
    ['job-name', name],
  ] as const) {
    const at = `spec.template.metadata.labels[${key}]`;
    const actual = labels?.[key];
    if (actual == null) causes.push(fieldError.required(at, `must be '${expected}'`));
    else if (actual !== expected) causes.push(invalidRendered(at, goStringMap(labels), `must be '${expected}'`));
  }
  const selector = selectorRequirements(spec.selector);
  if (selector !== 'invalid' && !selectorMatches(selector, { 'controller-uid': uid, 'job-name': name })) {
    causes.push(invalidRendered('spec.selector', goLabelSelector(spec.selector), '`selector` not auto-generated'));
  }
  return causes;
}

/**
 * generateSelector (job strategy): template labels `controller-uid` and `job-name` unless the
 * user set them, and a `controller-uid` matchLabel. In place.
 */
export function generateSelector(spec: JobSpec, uid: string, name: string): void {
  const template = (spec.template ??= {});
  const meta = (template.metadata ??= {});
  const labels = (meta.labels ??= {});
  if (!Object.hasOwn(labels, 'job-name')) labels['job-name'] = name;
  if (!Object.hasOwn(labels, 'controller-uid')) labels['controller-uid'] = uid;
  const selector = (spec.selector ??= {});
  const matchLabels = (selector.matchLabels ??= {});
  if (!Object.hasOwn(matchLabels, 'controller-uid')) matchLabels['controller-uid'] = uid;
}
