import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, keepStatus, resourceOf } from './base-strategy.js';
import { defaultTemplateMeta } from './pod-spec-defaults.js';
import { dropDisabledPodSpecFields } from './pod-spec-drop.js';
import { validateNonNegative } from './pod-spec-probes.js';
import { workloadStatusStrategy } from './workload-common.js';
import { parseCronSchedule } from './workload-cron-schedule.js';
import { goLabelSelector, invalidRendered } from './workload-go-value.js';
import { defaultJobTemplate, validateJobSpecCommon } from './workload-job-spec.js';
import { ensureSpec, specOf, type CronJobSpec, type JobSpec } from './workload-types.js';

/** batch/v1beta1 SetDefaults_CronJob, plus the job template's pod template defaults. */
function defaultCronJob(object: KubeObject): void {
  const spec = ensureSpec<CronJobSpec>(object);
  if ((spec.concurrencyPolicy ?? '') === '') spec.concurrencyPolicy = 'Allow';
  spec.suspend ??= false;
  spec.successfulJobsHistoryLimit ??= 3;
  spec.failedJobsHistoryLimit ??= 1;
  const jobTemplate = (spec.jobTemplate ??= {});
  jobTemplate.metadata = defaultTemplateMeta(jobTemplate.metadata);
  defaultJobTemplate((jobTemplate.spec ??= {}));
}

const CONCURRENCY = ['Allow', 'Forbid', 'Replace'];

/** ValidateJobTemplateSpec: a job spec whose selector will be generated. */
function validateJobTemplate(spec: JobSpec): StatusCause[] {
  const field = 'spec.jobTemplate.spec';
  const causes = validateJobSpecCommon(spec, field);
  if (spec.selector != null) causes.push(invalidRendered(`${field}.selector`, goLabelSelector(spec.selector), '`selector` will be auto-generated'));
  if (spec.manualSelector === true) causes.push(fieldError.notSupported(`${field}.manualSelector`, true, ['nil', 'false']));
  return causes;
}

/** ValidateCronJobSpec (batch validation, 1.17). */
function validateCronJobSpec(spec: CronJobSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const schedule = spec.schedule ?? '';
  if (schedule === '') {
    causes.push(fieldError.required('spec.schedule'));
  } else {
    const parsed = parseCronSchedule(schedule);
    if ('error' in parsed) causes.push(fieldError.invalid('spec.schedule', schedule, parsed.error));
  }
  causes.push(...validateNonNegative(spec.startingDeadlineSeconds, 'spec.startingDeadlineSeconds'));
  const policy = spec.concurrencyPolicy ?? '';
  if (policy === '') causes.push(fieldError.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY.includes(policy)) causes.push(fieldError.notSupported('spec.concurrencyPolicy', policy, CONCURRENCY));
  causes.push(...validateJobTemplate(spec.jobTemplate?.spec ?? {}));
  causes.push(...validateNonNegative(spec.successfulJobsHistoryLimit, 'spec.successfulJobsHistoryLimit'));
  causes.push(...validateNonNegative(spec.failedJobsHistoryLimit, 'spec.failedJobsHistoryLimit'));
  return causes;
}

/** Jobs are named `<cronjob>-<10-digit time>`, within 63 characters: the CronJob keeps to 52. */
const MAX_NAME = 52;

const templateSpec = (object: KubeObject) => specOf<CronJobSpec>(object).jobTemplate?.spec?.template?.spec;

/**
 * cronjobs (batch/v1beta1): kube-apiserver 1.17's cronJobStrategy. Schedules are parsed as
 * robfig/cron's ParseStandard (see workload-cron-schedule.ts); names longer than 52
 * characters are refused on create only. No generation in 1.17; DELETE orphans Jobs by default.
 */
export const cronJobStrategy = baseStrategy(resourceOf('batch', 'v1beta1', 'cronjobs'), {
  defaults: defaultCronJob,
  prepareForCreate: (object) => {
    object.status = {};
    dropDisabledPodSpecFields(templateSpec(object), undefined);
  },
  prepareForUpdate: (object, old) => {
    keepStatus(object, old);
    dropDisabledPodSpecFields(templateSpec(object), templateSpec(old));
  },
  validate: (object) => {
    const causes = validateCronJobSpec(specOf<CronJobSpec>(object));
    const name = object.metadata.name ?? '';
    if (name.length > MAX_NAME) causes.push(fieldError.invalid('metadata.name', name, `must be no more than ${MAX_NAME} characters`));
    return causes;
  },
  validateUpdate: (object) => validateCronJobSpec(specOf<CronJobSpec>(object)),
  defaultPropagation: 'Orphan',
  status: workloadStatusStrategy(() => []),
});
