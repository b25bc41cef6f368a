import type { KubeObject } from '../../apimachinery/object.js';
import { containerCells } from './container-cells.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS } from './kube-defaults.js';
import { formatLabelSelector } from './label-selector-text.js';
import { ageColumn, column, containerColumns, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { WorkloadView } from './views.js';

// kube 1.17 documents these columns from the extensions/v1beta1 types.
const SPEC = 'io.k8s.api.extensions.v1beta1.ReplicaSetSpec';
const STATUS = 'io.k8s.api.extensions.v1beta1.ReplicaSetStatus';

/** ReplicaSets: Name, Desired, Current, Ready (integers), Age, and wide Containers, Images, Selector. */
export function replicaSetPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Desired', doc(SPEC, 'replicas'), { type: 'integer' }),
      column('Current', doc(STATUS, 'replicas'), { type: 'integer' }),
      column('Ready', doc(STATUS, 'readyReplicas'), { type: 'integer' }),
      ageColumn(doc),
      ...containerColumns(),
      column('Selector', doc(SPEC, 'selector'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const { metadata, spec, status } = object as WorkloadView;
      const [names, images] = containerCells(spec?.template?.spec?.containers);
      return [
        metadata.name ?? '',
        spec?.replicas ?? KUBE_DEFAULTS.replicas,
        status?.replicas ?? 0,
        status?.readyReplicas ?? 0,
        timestampSince(metadata.creationTimestamp, now),
        names,
        images,
        formatLabelSelector(spec?.selector),
      ];
    },
  };
}
