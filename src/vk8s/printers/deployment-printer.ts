import type { KubeObject } from '../../apimachinery/object.js';
import { containerCells } from './container-cells.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS } from './kube-defaults.js';
import { labelSelectorText } from './label-selector-text.js';
import { ageColumn, column, containerColumns, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { WorkloadView } from './views.js';

// kube 1.17 documents these columns from the extensions/v1beta1 types.
const STATUS = 'io.k8s.api.extensions.v1beta1.DeploymentStatus';
const SPEC = 'io.k8s.api.extensions.v1beta1.DeploymentSpec';

/**
 * Deployments: Name, Ready (`ready/spec.replicas`), Up-to-date, Available, Age, and wide
 * Containers, Images, Selector (the selector's text, "" when empty — no `<none>` here).
 */
export function deploymentPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Ready', 'Number of the pod with ready state'),
      column('Up-to-date', doc(STATUS, 'updatedReplicas')),
      column('Available', doc(STATUS, 'availableReplicas')),
      ageColumn(doc),
      ...containerColumns(),
      column('Selector', doc(SPEC, 'selector'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const { metadata, spec, status } = object as WorkloadView;
      const [names, images] = containerCells(spec?.template?.spec?.containers);
      return [
        metadata.name ?? '',
        `${status?.readyReplicas ?? 0}/${spec?.replicas ?? KUBE_DEFAULTS.replicas}`,
        status?.updatedReplicas ?? 0,
        status?.availableReplicas ?? 0,
        timestampSince(metadata.creationTimestamp, now),
        names,
        images,
        labelSelectorText(spec?.selector) ?? '<error>',
      ];
    },
  };
}
