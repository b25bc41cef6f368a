import type { KubeObject } from '../../apimachinery/object.js';
import { containerCells } from './container-cells.js';
import { durationBetween, timestampSince } from './human-duration.js';
import { formatLabelSelector } from './label-selector-text.js';
import { ageColumn, column, containerColumns, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { JobView } from './views.js';

/** `succeeded/completions`, or without completions `succeeded/1` (`succeeded/1 of P` when parallelism P > 1). */
function completions(job: JobView): string {
  const succeeded = job.status?.succeeded ?? 0;
  const wanted = job.spec?.completions;
  if (wanted != null) return `${succeeded}/${wanted}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** "" before the job starts; start to completion once complete; start to now while running. */
function jobDuration(job: JobView, now: Date): string {
  const start = job.status?.startTime;
  if (start == null) return '';
  return durationBetween(start, job.status?.completionTime ?? now);
}

/** Jobs: Name, Completions, Duration, Age, and wide Containers, Images, Selector. */
export function jobPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Completions', doc('io.k8s.api.batch.v1.JobStatus', 'succeeded')),
      column('Duration', 'Time required to complete the job.'),
      ageColumn(doc),
      ...containerColumns(),
      column('Selector', doc('io.k8s.api.batch.v1.JobSpec', 'selector'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const job = object as JobView;
      const [names, images] = containerCells(job.spec?.template?.spec?.containers);
      return [
        job.metadata.name ?? '',
        completions(job),
        jobDuration(job, now),
        timestampSince(job.metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(job.spec?.selector),
      ];
    },
  };
}
