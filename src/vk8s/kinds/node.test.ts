import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { nodeStrategy as strategy } from './node.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

function node(spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  const object: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, spec, ...(status ? { status } : {}) };
  strategy.defaults(object);
  return object;
}

describe('Node strategy', () => {
  it('node keeps status on create, defaults allocatable to capacity, and is cluster-scoped', () => {
    const object = node({}, { capacity: { cpu: '4', pods: '110' } });
    strategy.prepareForCreate(object);
    assert.deepEqual(object.status, { capacity: { cpu: '4', pods: '110' }, allocatable: { cpu: '4', pods: '110' } });
    assert.equal(strategy.resource.namespaced, false);
    assert.equal(strategy.nameRule, 'dns1123Subdomain');
    assert.deepEqual(strategy.validate(object, context), []);
  });

  it('node validation checks taints under kube 1.17 paths', () => {
    const taints = [{ key: 'dedicated', value: 'edge', effect: 'NoSchedule' }, { key: 'dedicated', value: 'other', effect: 'NoSchedule' }, { key: 'a b', value: '-x', effect: 'Sometimes' }, { key: 'k' }];
    assert.deepEqual(lines(strategy.validate(node({ taints }), context)), [
      'metadata.taints[1]: Duplicate value: {"key":"dedicated","value":"other","effect":"NoSchedule"}: taints must be unique by key and effect pair',
      'metadata.taints[2].key: Invalid value: "a b": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character (e.g. \'MyName\',  or \'my.name\',  or \'123-abc\', regex used for validation is \'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\')',
      `metadata.taints[2].value: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
      'metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
      'metadata.taints[3].effect: Required value',
    ]);
  });

  it('node validation checks pod CIDRs and resource quantities', () => {
    assert.deepEqual(strategy.validate(node({ podCIDRs: ['10.244.0.0/24', 'fd00::/64'] }), context), []);
    assert.deepEqual(lines(strategy.validate(node({ podCIDRs: ['10.244.0.0/24', '10.245.0.0/24'] }), context)), [
      'spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.245.0.0/24"]: may specify no more than one CIDR for each IP family',
    ]);
    assert.deepEqual(lines(strategy.validate(node({ podCIDRs: ['x'] }), context)), ['spec.podCIDRs[0]: Invalid value: ["x"]: must be valid CIDR']);
    assert.deepEqual(lines(strategy.validate(node({}, { capacity: { memory: '-1Gi', pods: '1500m' } }), context)), [
      'status.capacity.memory: Invalid value: "-1Gi": must be greater than or equal to 0',
      'status.capacity.pods: Invalid value: "1500m": must be an integer',
      'status.allocatable.memory: Invalid value: "-1Gi": must be greater than or equal to 0',
      'status.allocatable.pods: Invalid value: "1500m": must be an integer',
    ]);
  });

  it('node update lets podCIDRs and providerID only go from unset to set', () => {
    const old = node({ podCIDRs: ['10.244.0.0/24'], providerID: 'edge://1' });
    assert.deepEqual(strategy.validateUpdate(node({ podCIDRs: ['10.244.0.0/24'], providerID: 'edge://1', unschedulable: true }), old, context), []);
    assert.deepEqual(strategy.validateUpdate(node({ podCIDRs: ['10.1.0.0/24'] }), node({}), context), []);
    assert.deepEqual(lines(strategy.validateUpdate(node({ podCIDRs: ['10.245.0.0/24'], providerID: 'edge://2' }), old, context)), [
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
    const dup = node({}, { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'InternalIP', address: '10.0.0.1' }] });
    const status = strategy.status;
    assert.ok(status !== undefined);
    assert.deepEqual(lines(status.validateUpdate(dup, node({}), context)), ['status.addresses[1]: Duplicate value: {"type":"InternalIP","address":"10.0.0.1"}']);
  });

  it('node keeps status on spec updates and selects by spec.unschedulable', () => {
    const old = node({}, { phase: 'Running' });
    const next = node({ unschedulable: true }, { phase: 'Gone' });
    strategy.prepareForUpdate(next, old);
    assert.deepEqual(next.status, { phase: 'Running' });
    assert.deepEqual(strategy.selectableFields(next), { 'spec.unschedulable': 'true' });
    assert.deepEqual(strategy.selectableFields(old), { 'spec.unschedulable': 'false' });
  });
});
