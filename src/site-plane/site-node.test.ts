import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeStrategy } from '../vk8s/kinds/node.js';
import { containerRuntimeVersionOf, healthyConditions, internalAddressOf, reregisteredNode, siteNodeObject, siteTypeOfNodes } from './site-node.js';

const NOW = '2025-01-02T03:04:05Z';

describe('site node', () => {
  it('site node is the Node a 1.17 kubelet registers, named and labelled for its site', () => {
    const node = siteNodeObject({ name: 'n0', cpu: '8', memory: '16Gi' }, { site: 'paris', type: 'REGIONAL_EDGE', uid: 'u-1', now: NOW });
    assert.equal(node.metadata.name, 'paris-n0');
    assert.equal(node.metadata.uid, 'u-1');
    assert.deepEqual(node.metadata.labels, {
      'beta.kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'kubernetes.io/hostname': 'paris-n0',
      'kubernetes.io/os': 'linux',
      'svc.io/siteName': 'paris',
      'svc.io/siteType': 'svc-io-re',
    });
    const status = node['status'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(status['capacity'], { cpu: '8', memory: '16Gi', pods: '110' });
    assert.deepEqual(status['allocatable'], status['capacity']);
    assert.deepEqual(status['conditions'], healthyConditions(NOW));
    assert.deepEqual(status['addresses'], [{ type: 'InternalIP', address: internalAddressOf('paris-n0') }, { type: 'Hostname', address: 'paris-n0' }]);
    assert.equal(status['nodeInfo']?.['kubeletVersion'], 'v1.17.0-edgeplane');
    assert.equal(status['nodeInfo']?.['architecture'], 'amd64');
    assert.deepEqual(nodeStrategy.validate(node, { cluster: { tenant: 't', namespace: 'n', name: 'v' }, now: NOW }), []);
  });

  it('site node tells its site\'s type (the identity service gives customer edges\' pods their own certificate lifetime)', () => {
    const node = (type: 'REGIONAL_EDGE' | 'CUSTOMER_EDGE') => siteNodeObject({ name: 'n0', cpu: '8', memory: '16Gi' }, { site: 'paris', type, uid: 'u-1', now: NOW });
    assert.equal(siteTypeOfNodes([node('CUSTOMER_EDGE')]), 'CUSTOMER_EDGE');
    assert.equal(siteTypeOfNodes([node('REGIONAL_EDGE')]), 'REGIONAL_EDGE');
    assert.equal(siteTypeOfNodes([]), undefined);
  });

  it('site node of a runc site reports runc://<version>; a simulated one what it always did', () => {
    const info = (node: ReturnType<typeof siteNodeObject>): Record<string, unknown> => (node['status'] as Record<string, Record<string, unknown>>)['nodeInfo'] ?? {};
    assert.equal(containerRuntimeVersionOf({ runtime: 'simulated' }), undefined);
    assert.equal(containerRuntimeVersionOf({ runtime: 'runc' }), 'runc://unknown');
    const runc = siteNodeObject({ name: 'n0', cpu: '8', memory: '16Gi' }, { site: 'lyon', type: 'CUSTOMER_EDGE', uid: 'u', now: NOW, containerRuntimeVersion: containerRuntimeVersionOf({ runtime: 'runc', runtimeVersion: '1.1.5' }) ?? '' });
    assert.deepEqual([info(runc)['containerRuntimeVersion'], info(runc)['osImage']], ['runc://1.1.5', 'Edgeplane site']);
    const simulated = siteNodeObject({ name: 'n0', cpu: '8', memory: '16Gi' }, { site: 'lyon', type: 'CUSTOMER_EDGE', uid: 'u', now: NOW });
    assert.deepEqual([info(simulated)['containerRuntimeVersion'], info(simulated)['osImage']], ['simulated://1.0.0', 'Edgeplane simulated site']);
    assert.equal(info(reregisteredNode(simulated, runc))['containerRuntimeVersion'], 'simulated://1.0.0', 're-registration takes the new runtime');
  });

  it('site node conditions carry kubelet reasons and messages', () => {
    assert.deepEqual(
      healthyConditions(NOW).map((c) => [c.type, c.status, c.reason, c.message]),
      [
        ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'],
        ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'],
        ['PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'],
        ['Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'],
      ],
    );
  });

  it('site node addresses are stable private addresses', () => {
    assert.equal(internalAddressOf('a-n0'), internalAddressOf('a-n0'));
    assert.match(internalAddressOf('a-n0'), /^10\.\d{1,3}\.\d{1,3}\.([1-9]\d?|1\d\d|2[0-4]\d|25[0-4])$/);
    assert.notEqual(internalAddressOf('a-n0'), internalAddressOf('a-n1'));
  });

  it('site node re-registered keeps identity and conditions, takes new capacity', () => {
    const old = siteNodeObject({ name: 'n0', cpu: '8', memory: '16Gi' }, { site: 's', type: 'CUSTOMER_EDGE', uid: 'old', now: NOW });
    (old['status'] as { conditions: unknown }).conditions = [{ type: 'Ready', status: 'Unknown' }];
    const fresh = siteNodeObject({ name: 'n0', cpu: '16', memory: '32Gi' }, { site: 's', type: 'CUSTOMER_EDGE', uid: 'new', now: '2026-01-01T00:00:00Z' });
    const next = reregisteredNode(fresh, old);
    assert.equal(next.metadata.uid, 'old');
    assert.equal(next.metadata.creationTimestamp, NOW);
    const status = next['status'] as Record<string, unknown>;
    assert.deepEqual(status['conditions'], [{ type: 'Ready', status: 'Unknown' }]);
    assert.deepEqual(status['capacity'], { cpu: '16', memory: '32Gi', pods: '110' });
    assert.equal((status['nodeInfo'] as Record<string, unknown>)['bootID'], ((old['status'] as Record<string, Record<string, unknown>>)['nodeInfo'] ?? {})['bootID']);
  });
});
