import type { JobSiteRecord } from './job-site-plan.js';

interface JobCondition {
  type: string;
  status: string;
  lastProbeTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The batch/v1 JobStatus fields the controller writes. */
export interface JobStatusView {
  startTime?: string;
  completionTime?: string;
  active?: number;
  succeeded?: number;
  failed?: number;
  conditions?: JobCondition[];
  [field: string]: unknown;
}

/** Finished: a Complete or Failed condition that is True (kube's IsJobFinished). */
export function isJobFinished(status: JobStatusView): boolean {
  return (status.conditions ?? []).some((c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True');
}

export interface JobStatusInput {
  readonly previous: JobStatusView;
  readonly startTime: string;
  /** Every site's record: placed sites, sites that finished, and sites whose pods remain. */
  readonly sites: ReadonlyMap<string, JobSiteRecord>;
  /** Sites that count for completion: the placed ones and the ones that finished. */
  readonly counted: ReadonlySet<string>;
  /** RFC 3339 (seconds): condition and completion times. */
  readonly now: string;
}

export interface JobStatusResult {
  readonly status: JobStatusView;
  /** The Job finished in this pass. */
  readonly finished?: 'Complete' | 'Failed';
}

/**
 * The Job's status as the vK8s shows it: active, succeeded and failed summed over the sites;
 * `Complete` (with completionTime) once every counted site completed; `Failed` once every
 * counted site finished and one failed, with that site's reason (DeadlineExceeded first,
 * since the deadline is the whole Job's). Zero counts are left out, as Go's omitempty.
 */
export function jobStatus(input: JobStatusInput): JobStatusResult {
  let active = 0;
  let succeeded = 0;
  let failed = 0;
  for (const record of input.sites.values()) {
    active += record.active;
    succeeded += record.succeeded;
    failed += record.failed;
  }
  const status: JobStatusView = { ...input.previous, startTime: input.startTime };
  delete status.active;
  delete status.succeeded;
  delete status.failed;
  if (active > 0) status.active = active;
  if (succeeded > 0) status.succeeded = succeeded;
  if (failed > 0) status.failed = failed;
  const counted = [...input.counted].map((site) => input.sites.get(site));
  if (counted.length === 0 || counted.some((r) => r?.condition === undefined)) return { status };
  const failures = counted.filter((r) => r?.condition === 'Failed');
  if (failures.length === 0) {
    status.conditions = [...(status.conditions ?? []), { type: 'Complete', status: 'True', lastProbeTime: input.now, lastTransitionTime: input.now }];
    status.completionTime = input.now;
    return { status, finished: 'Complete' };
  }
  const first = failures.find((r) => r?.reason === 'DeadlineExceeded') ?? failures[0];
  status.conditions = [
    ...(status.conditions ?? []),
    { type: 'Failed', status: 'True', lastProbeTime: input.now, lastTransitionTime: input.now, reason: first?.reason ?? 'BackoffLimitExceeded', message: first?.message ?? '' },
  ];
  return { status, finished: 'Failed' };
}
