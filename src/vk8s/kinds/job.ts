import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, keepStatus, resourceOf } from './base-strategy.js';
import { dropDisabledPodSpecFields } from './pod-spec-drop.js';
import { uniqueCauses, validateImmutable, validateStatusCounters, workloadStatusStrategy } from './workload-common.js';
import { goLabelSelector } from './workload-go-value.js';
import { defaultJobSpec, defaultJobTemplate, generateSelector, validateGeneratedSelector, validateJobSpec } from './workload-job-spec.js';
import { ensureSpec, specOf, statusOf, type JobSpec } from './workload-types.js';

/** batch/v1 SetDefaults_Job: spec counters, and the Job's labels from its template's when it has none. */
function defaultJob(object: KubeObject): void {
  const spec = ensureSpec<JobSpec>(object);
  defaultJobSpec(spec);
  copyTemplateLabels(object, spec);
  defaultJobTemplate(spec);
}

/** `metadata.labels` default to the template's labels when empty. */
function copyTemplateLabels(object: KubeObject, spec: JobSpec): void {
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels != null && Object.keys(object.metadata.labels ?? {}).length === 0) {
    object.metadata.labels = { ...templateLabels };
  }
}

function validateJob(object: KubeObject): StatusCause[] {
  const spec = specOf<JobSpec>(object);
  return [...validateGeneratedSelector(spec, object.metadata.uid ?? '', object.metadata.name ?? ''), ...validateJobSpec(spec)];
}

/** `Invalid value: "null"` is how Go prints an absent pointer field. */
const renderedOrNull = (value: unknown, render: () => string): string => (value == null ? '"null"' : render());

/** ValidateJobUpdate: completions, selector and template are immutable. */
function validateJobUpdate(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = specOf<JobSpec>(object);
  const before = specOf<JobSpec>(old);
  return uniqueCauses([
    ...validateJob(object),
    ...validateImmutable(spec.completions, before.completions, 'spec.completions', renderedOrNull(spec.completions, () => String(spec.completions))),
    ...validateImmutable(spec.selector, before.selector, 'spec.selector', renderedOrNull(spec.selector, () => goLabelSelector(spec.selector))),
    ...validateImmutable(spec.template, before.template, 'spec.template', JSON.stringify(spec.template ?? {})),
  ]);
}

const templateSpec = (object: KubeObject) => specOf<JobSpec>(object).template?.spec;

/**
 * jobs (batch/v1): kube-apiserver 1.17's jobStrategy. On create, unless `manualSelector`, the
 * selector and the template's `controller-uid`/`job-name` labels are generated from the
 * Job's uid and name (system metadata is set before prepareForCreate); an unlabelled Job then
 * shows its template's labels, as kube returns it after storage. ttlSecondsAfterFinished is
 * an alpha field in 1.17 and dropped. Jobs have no generation in 1.17. DELETE orphans pods
 * by default.
 */
export const jobStrategy = baseStrategy(resourceOf('batch', 'v1', 'jobs'), {
  defaults: defaultJob,
  prepareForCreate: (object) => {
    object.status = {};
    const spec = ensureSpec<JobSpec>(object);
    delete spec.ttlSecondsAfterFinished;
    dropDisabledPodSpecFields(spec.template?.spec, undefined);
    if (spec.manualSelector !== true) generateSelector(spec, object.metadata.uid ?? '', object.metadata.name ?? '');
    copyTemplateLabels(object, spec);
  },
  prepareForUpdate: (object, old) => {
    keepStatus(object, old);
    const spec = ensureSpec<JobSpec>(object);
    if (specOf<JobSpec>(old).ttlSecondsAfterFinished == null) delete spec.ttlSecondsAfterFinished;
    dropDisabledPodSpecFields(templateSpec(object), templateSpec(old));
  },
  validate: validateJob,
  validateUpdate: validateJobUpdate,
  selectableFields: (object) => ({ 'status.successful': String(statusOf<{ succeeded?: number }>(object).succeeded ?? 0) }),
  defaultPropagation: 'Orphan',
  status: workloadStatusStrategy((object) => validateStatusCounters(statusOf(object), ['active', 'succeeded', 'failed'])),
});
