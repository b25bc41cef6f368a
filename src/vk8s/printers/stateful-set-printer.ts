import type { KubeObject } from '../../apimachinery/object.js';
import { containerCells } from './container-cells.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS } from './kube-defaults.js';
import { ageColumn, column, containerColumns, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { WorkloadView } from './views.js';

/** StatefulSets: Name, Ready (`ready/spec.replicas`), Age, and wide Containers, Images. */
export function statefulSetPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [nameColumn(doc), column('Ready', 'Number of the pod with ready state'), ageColumn(doc), ...containerColumns()],
    cells(object: KubeObject, now: Date) {
      const { metadata, spec, status } = object as WorkloadView;
      const [names, images] = containerCells(spec?.template?.spec?.containers);
      return [metadata.name ?? '', `${status?.readyReplicas ?? 0}/${spec?.replicas ?? KUBE_DEFAULTS.replicas}`, timestampSince(metadata.creationTimestamp, now), names, images];
    },
  };
}
