import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { ageColumn, column, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { NodeView } from './views.js';

const NODE_INFO = 'io.k8s.api.core.v1.NodeSystemInfo';
const NODE_STATUS = 'io.k8s.api.core.v1.NodeStatus';
const ROLE_PREFIX = 'node-role.kubernetes.io/';
const ROLE_LABEL = 'kubernetes.io/role';

/** `Ready` / `NotReady` from the Ready condition (`Unknown` without one), then `SchedulingDisabled` when cordoned. */
function nodeStatus(node: NodeView): string {
  // The last condition of a type wins, as in kube's condition map.
  const ready = (node.status?.conditions ?? []).filter((c) => c.type === 'Ready').at(-1);
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (node.spec?.unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Roles from `node-role.kubernetes.io/<role>` labels and the `kubernetes.io/role` label, sorted, `<none>` without any. */
function nodeRoles(node: NodeView): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(node.metadata.labels ?? {})) {
    if (key.startsWith(ROLE_PREFIX)) {
      const role = key.slice(ROLE_PREFIX.length);
      if (role !== '') roles.add(role);
    } else if (key === ROLE_LABEL && value !== '') {
      roles.add(value);
    }
  }
  const text = [...roles].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
  return text === '' ? '<none>' : text;
}

const firstAddress = (node: NodeView, type: string): string => node.status?.addresses?.find((a) => a.type === type)?.address ?? '<none>';
const orUnknown = (value: string | undefined): string => (value === undefined || value === '' ? '<unknown>' : value);

/**
 * Nodes: Name, Status, Roles, Age, Version, and wide Internal-IP, External-IP (first address
 * of the type or `<none>`), OS-Image, Kernel-Version, Container-Runtime (`<unknown>` when empty).
 */
export function nodePrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Status', 'The status of the node'),
      column('Roles', 'The roles of the node'),
      ageColumn(doc),
      column('Version', doc(NODE_INFO, 'kubeletVersion')),
      column('Internal-IP', doc(NODE_STATUS, 'addresses'), { priority: 1 }),
      column('External-IP', doc(NODE_STATUS, 'addresses'), { priority: 1 }),
      column('OS-Image', doc(NODE_INFO, 'osImage'), { priority: 1 }),
      column('Kernel-Version', doc(NODE_INFO, 'kernelVersion'), { priority: 1 }),
      column('Container-Runtime', doc(NODE_INFO, 'containerRuntimeVersion'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const node = object as NodeView;
      const info = node.status?.nodeInfo;
      return [
        node.metadata.name ?? '',
        nodeStatus(node),
        nodeRoles(node),
        timestampSince(node.metadata.creationTimestamp, now),
        info?.kubeletVersion ?? '',
        firstAddress(node, 'InternalIP'),
        firstAddress(node, 'ExternalIP'),
        orUnknown(info?.osImage),
        orUnknown(info?.kernelVersion),
        orUnknown(info?.containerRuntimeVersion),
      ];
    },
  };
}
