import type { KubeObject } from '../../apimachinery/object.js';
import { containerCells } from './container-cells.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS } from './kube-defaults.js';
import { formatLabelSelector } from './label-selector-text.js';
import { ageColumn, column, containerColumns, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { CronJobView } from './views.js';

const SPEC = 'io.k8s.api.batch.v1beta1.CronJobSpec';
const STATUS = 'io.k8s.api.batch.v1beta1.CronJobStatus';

/** kube's `printBoolPtr`: `True`, `False`, or `<unset>`. */
function boolText(value: boolean | undefined): string {
  if (value == null) return '<unset>';
  return value ? 'True' : 'False';
}

/**
 * CronJobs: Name, Schedule, Suspend (a boolean column whose cells are the strings
 * `True`/`False`/`<unset>`), Active (count), Last Schedule (`<none>` before the first run),
 * Age, and wide Containers, Images, Selector of the job template.
 */
export function cronJobPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Schedule', doc(SPEC, 'schedule')),
      column('Suspend', doc(SPEC, 'suspend'), { type: 'boolean' }),
      column('Active', doc(STATUS, 'active'), { type: 'integer' }),
      column('Last Schedule', doc(STATUS, 'lastScheduleTime')),
      ageColumn(doc),
      ...containerColumns(),
      column('Selector', doc('io.k8s.api.batch.v1.JobSpec', 'selector'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const { metadata, spec, status } = object as CronJobView;
      const jobSpec = spec?.jobTemplate?.spec;
      const [names, images] = containerCells(jobSpec?.template?.spec?.containers);
      const last = status?.lastScheduleTime;
      return [
        metadata.name ?? '',
        spec?.schedule ?? '',
        boolText(spec?.suspend ?? KUBE_DEFAULTS.suspend),
        status?.active?.length ?? 0,
        last == null ? '<none>' : timestampSince(last, now),
        timestampSince(metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(jobSpec?.selector),
      ];
    },
  };
}
