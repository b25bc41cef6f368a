import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { podSummary } from './pod-status.js';
import { ageColumn, column, nameColumn, type FieldDoc, type TablePrinter, type TableRowCondition } from './table-printer.js';
import type { PodView } from './views.js';

const POD_SPEC = 'io.k8s.api.core.v1.PodSpec';
const POD_STATUS = 'io.k8s.api.core.v1.PodStatus';

const orNone = (value: string | undefined): string => (value === undefined || value === '' ? '<none>' : value);

/** `true/total` readiness gates whose pod condition is True, `<none>` without gates. */
function readinessGates(pod: PodView): string {
  const gates = pod.spec?.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const conditions = pod.status?.conditions ?? [];
  const met = gates.filter((gate) => conditions.find((c) => c.type === gate.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

/** The first pod IP (`status.podIPs[0]`, which mirrors `status.podIP`). */
function podIP(pod: PodView): string | undefined {
  const ips = pod.status?.podIPs ?? [];
  return ips.length > 0 ? ips[0]?.ip : pod.status?.podIP;
}

/**
 * Pods: Name, Ready (`ready/total`), Status, Restarts, Age, and wide IP, Node, Nominated
 * Node, Readiness Gates. Succeeded and Failed pods carry kube's `Completed` row condition.
 */
export function podPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Ready', 'The aggregate readiness state of this pod for accepting traffic.'),
      column('Status', 'The aggregate status of the containers in this pod.'),
      column('Restarts', 'The number of times the containers in this pod have been restarted.', { type: 'integer' }),
      ageColumn(doc),
      column('IP', doc(POD_STATUS, 'podIP'), { priority: 1 }),
      column('Node', doc(POD_SPEC, 'nodeName'), { priority: 1 }),
      column('Nominated Node', doc(POD_STATUS, 'nominatedNodeName'), { priority: 1 }),
      column('Readiness Gates', doc(POD_SPEC, 'readinessGates'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const pod = object as PodView;
      const summary = podSummary(pod);
      return [
        pod.metadata.name ?? '',
        `${summary.ready}/${summary.total}`,
        summary.status,
        summary.restarts,
        timestampSince(pod.metadata.creationTimestamp, now),
        orNone(podIP(pod)),
        orNone(pod.spec?.nodeName),
        orNone(pod.status?.nominatedNodeName),
        readinessGates(pod),
      ];
    },
    conditions(object: KubeObject): TableRowCondition[] | undefined {
      switch ((object as PodView).status?.phase) {
        case 'Succeeded':
          return [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
        case 'Failed':
          return [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];
        default:
          return undefined;
      }
    },
  };
}
