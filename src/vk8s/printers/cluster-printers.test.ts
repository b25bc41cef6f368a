import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { namespacePrinter } from './config-printers.js';
import { eventPrinter } from './event-printer.js';
import { nodePrinter } from './node-printer.js';
import { DAY, HOUR, MINUTE, NOW, SECOND, ago, meta, namedDoc, object } from './testing/fixtures.js';

describe('node printer', () => {
  const printer = nodePrinter(namedDoc);
  const nodeInfo = { kubeletVersion: 'v1.17.0', osImage: 'Ubuntu 18.04.3 LTS', kernelVersion: '4.15.0-74-generic', containerRuntimeVersion: 'docker://19.3.5' };
  const node = (labels: Record<string, string>, spec: Record<string, unknown>, status: Record<string, unknown>): KubeObject =>
    object('v1', 'Node', { ...meta('node-1', 30 * DAY, { labels }), namespace: undefined }, { spec, status });

  it('node printer prints a ready node with roles and wide cells', () => {
    const n = node(
      { 'kubernetes.io/hostname': 'node-1', 'node-role.kubernetes.io/master': '', 'node-role.kubernetes.io/etcd': 'true' },
      {},
      {
        conditions: [
          { type: 'MemoryPressure', status: 'False' },
          { type: 'Ready', status: 'True' },
        ],
        addresses: [
          { type: 'Hostname', address: 'node-1' },
          { type: 'InternalIP', address: '192.168.0.10' },
          { type: 'InternalIP', address: '192.168.0.11' },
        ],
        nodeInfo,
      },
    );
    assert.deepEqual(printer.cells(n, NOW), ['node-1', 'Ready', 'etcd,master', '30d', 'v1.17.0', '192.168.0.10', '<none>', 'Ubuntu 18.04.3 LTS', '4.15.0-74-generic', 'docker://19.3.5']);
  });

  it('node printer shows NotReady, Unknown and SchedulingDisabled', () => {
    assert.equal(printer.cells(node({}, {}, { conditions: [{ type: 'Ready', status: 'False' }] }), NOW)[1], 'NotReady');
    assert.equal(printer.cells(node({}, {}, { conditions: [{ type: 'Ready', status: 'Unknown' }] }), NOW)[1], 'NotReady');
    assert.equal(printer.cells(node({}, { unschedulable: true }, { conditions: [{ type: 'Ready', status: 'True' }] }), NOW)[1], 'Ready,SchedulingDisabled');
    assert.equal(printer.cells(node({}, { unschedulable: true }, {}), NOW)[1], 'Unknown,SchedulingDisabled');
  });

  it('node printer takes roles from kubernetes.io/role too and prints <none> and <unknown> when missing', () => {
    const n = node({ 'kubernetes.io/role': 'edge', 'node-role.kubernetes.io/': 'x' }, {}, { addresses: [{ type: 'ExternalIP', address: '198.51.100.4' }] });
    assert.deepEqual(printer.cells(n, NOW).slice(1), ['Unknown', 'edge', '30d', '', '<none>', '198.51.100.4', '<unknown>', '<unknown>', '<unknown>']);
    assert.equal(printer.cells(node({}, {}, {}), NOW)[2], '<none>');
  });

  it('node printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.priority, c.description]),
      [
        ['Name', 0, 'ObjectMeta.name'],
        ['Status', 0, 'The status of the node'],
        ['Roles', 0, 'The roles of the node'],
        ['Age', 0, 'ObjectMeta.creationTimestamp'],
        ['Version', 0, 'NodeSystemInfo.kubeletVersion'],
        ['Internal-IP', 1, 'NodeStatus.addresses'],
        ['External-IP', 1, 'NodeStatus.addresses'],
        ['OS-Image', 1, 'NodeSystemInfo.osImage'],
        ['Kernel-Version', 1, 'NodeSystemInfo.kernelVersion'],
        ['Container-Runtime', 1, 'NodeSystemInfo.containerRuntimeVersion'],
      ],
    );
  });
});

describe('namespace printer', () => {
  it('namespace printer prints the phase', () => {
    const printer = namespacePrinter(namedDoc);
    const ns = object('v1', 'Namespace', meta('team-a', 4 * HOUR), { spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    assert.deepEqual(printer.cells(ns, NOW), ['team-a', 'Active', '4h']);
    assert.deepEqual(printer.cells(object('v1', 'Namespace', meta('going', HOUR), { status: { phase: 'Terminating' } }), NOW)[1], 'Terminating');
    assert.equal(printer.cells(object('v1', 'Namespace', meta('fresh', HOUR), {}), NOW)[1], 'Active', 'the default phase');
    assert.deepEqual(printer.columns.map((c) => [c.name, c.description]), [['Name', 'ObjectMeta.name'], ['Status', 'The status of the namespace'], ['Age', 'ObjectMeta.creationTimestamp']]);
  });
});

describe('event printer', () => {
  const printer = eventPrinter(namedDoc);
  const event = (body: Record<string, unknown>): KubeObject => object('v1', 'Event', meta('web-0.15f1a2b3c4d5e6f7', 10 * MINUTE), body);

  it('event printer prints last seen, type, reason, object and the wide cells', () => {
    const e = event({
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', uid: 'u', apiVersion: 'v1', fieldPath: 'spec.containers{nginx}' },
      reason: 'Pulled',
      message: 'Container image "nginx:1.17" already present on machine\n',
      source: { component: 'kubelet', host: 'node-1' },
      firstTimestamp: ago(10 * MINUTE),
      lastTimestamp: ago(30 * SECOND),
      count: 4,
      type: 'Normal',
    });
    assert.deepEqual(printer.cells(e, NOW), [
      '30s',
      'Normal',
      'Pulled',
      'pod/web-0',
      'spec.containers{nginx}',
      'kubelet, node-1',
      'Container image "nginx:1.17" already present on machine',
      '10m',
      4,
      'web-0.15f1a2b3c4d5e6f7',
    ]);
  });

  it('event printer prints the kind alone without a name, the component alone without a host, and <unknown> without timestamps', () => {
    const e = event({ involvedObject: { kind: 'Node' }, reason: 'RegisteredNode', source: { component: 'node-controller' }, type: 'Normal', eventTime: ago(MINUTE) });
    assert.deepEqual(printer.cells(e, NOW), ['<unknown>', 'Normal', 'RegisteredNode', 'node', '', 'node-controller', '', '<unknown>', 0, 'web-0.15f1a2b3c4d5e6f7']);
  });

  it('event printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.priority, c.format, c.description]),
      [
        ['Last Seen', 0, '', 'Event.lastTimestamp'],
        ['Type', 0, '', 'Event.type'],
        ['Reason', 0, '', 'Event.reason'],
        ['Object', 0, '', 'Event.involvedObject'],
        ['Subobject', 1, '', 'ObjectReference.fieldPath'],
        ['Source', 1, '', 'Event.source'],
        ['Message', 0, '', 'Event.message'],
        ['First Seen', 1, '', 'Event.firstTimestamp'],
        ['Count', 1, '', 'Event.count'],
        ['Name', 1, 'name', 'ObjectMeta.name'],
      ],
    );
  });
});
