import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { NodeAccounting } from './node-accounting.js';
import { fitErrorMessage } from './node-fit.js';
import { podLimits, podRequests } from './pod-resources.js';
import { decide, type DecisionInput } from './schedule-decision.js';

export function node(name: string, cpu: string, memory: string, ready = true, pods = '110'): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name } },
    status: { allocatable: { cpu, memory, pods }, capacity: { cpu, memory, pods }, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
  };
}

function pod(cpu: string, memory: string, extra: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x', resources: { limits: { cpu, memory } } }], ...extra } };
}

const input = (p: KubeObject, nodes: KubeObject[], accounting = new NodeAccounting(), quota?: DecisionInput['quota']): DecisionInput => ({
  pod: p,
  requests: podRequests(p),
  limits: podLimits(p),
  site: 'site-a',
  cluster: 'acme/default/vk1',
  clusterName: 'default/vk1',
  nodes,
  quota,
  accounting,
});

describe('scheduler fit', () => {
  it('scheduler fit reads requests, defaulting them to limits, with init containers and overhead', () => {
    const p = pod('500m', '256Mi', { initContainers: [{ name: 'i', image: 'x', resources: { requests: { cpu: '2' } } }], overhead: { memory: '1Mi' } });
    assert.deepEqual(podRequests(p), { cpuMillis: 2000, memoryBytes: 257 * 2 ** 20 });
    assert.deepEqual(podLimits(pod('1', '1Gi')), { cpuMillis: 1000, memoryBytes: 2 ** 30 });
  });

  it('scheduler fit picks the least requested ready node and counts what is bound there', () => {
    const accounting = new NodeAccounting();
    accounting.assign('x', { uid: 'x', node: 'site-a-n1', site: 'site-a', cluster: 'acme/default/vk1', requests: { cpuMillis: 1500, memoryBytes: 0 }, limits: { cpuMillis: 1500, memoryBytes: 0 }, assumed: false });
    const decision = decide(input(pod('500m', '64Mi'), [node('site-a-n1', '2', '1Gi'), node('site-a-n2', '2', '1Gi'), node('site-a-n3', '8', '8Gi', false)], accounting));
    assert.ok('node' in decision);
    assert.equal(decision.node.metadata.name, 'site-a-n2');
  });

  it('scheduler fit explains in kube words why nothing fits', () => {
    const nodes = [node('n1', '1', '1Gi'), node('n2', '1', '128Mi'), node('n3', '4', '4Gi', false)];
    const decision = decide(input(pod('2', '256Mi'), nodes));
    assert.deepEqual(decision, { unschedulable: '0/3 nodes are available: 1 Insufficient memory, 1 node(s) were not ready, 2 Insufficient cpu.' });
    assert.equal(fitErrorMessage(3, ['Insufficient cpu', 'Insufficient cpu', 'Insufficient cpu']), '0/3 nodes are available: 3 Insufficient cpu.');
    assert.equal(fitErrorMessage(0, []), 'no nodes available to schedule pods');
    const full = decide(input(pod('100m', '1Mi'), [node('n1', '4', '4Gi', true, '0')]));
    assert.deepEqual(full, { unschedulable: '0/1 nodes are available: 1 Insufficient pods.' });
  });

  it('scheduler fit refuses a pod over the vK8s quota of the site, naming it', () => {
    const accounting = new NodeAccounting();
    accounting.assign('x', { uid: 'x', node: 'n1', site: 'site-a', cluster: 'acme/default/vk1', requests: { cpuMillis: 1800, memoryBytes: 0 }, limits: { cpuMillis: 1800, memoryBytes: 2 ** 29 }, assumed: false });
    const decision = decide(input(pod('250m', '100Mi'), [node('n1', '8', '8Gi')], accounting, { cpuMillis: 2000, memoryBytes: 2 ** 30 }));
    assert.deepEqual(decision, { unschedulable: "the quota of virtual_k8s default/vk1 on site site-a is reached (cpu: the pod's limits need 250m, 1800m of 2000m in use)" });
  });
});
