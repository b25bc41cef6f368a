import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { endpointsStrategy as strategy } from './endpoints.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

function endpoints(subsets: unknown[]): KubeObject {
  const object: KubeObject = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default' }, subsets };
  strategy.defaults(object);
  return object;
}

describe('Endpoints strategy', () => {
  it('endpoints default port protocols to TCP and accept ready and not-ready addresses', () => {
    const object = endpoints([{ addresses: [{ ip: '10.1.0.5', hostname: 'web-0', nodeName: 'node-1' }], notReadyAddresses: [{ ip: 'fd00::5' }], ports: [{ port: 8080 }] }]);
    assert.deepEqual(object.subsets, [{ addresses: [{ ip: '10.1.0.5', hostname: 'web-0', nodeName: 'node-1' }], notReadyAddresses: [{ ip: 'fd00::5' }], ports: [{ port: 8080, protocol: 'TCP' }] }]);
    assert.deepEqual(strategy.validate(object, context), []);
  });

  it('endpoints validation requires addresses and valid, non-special IPs', () => {
    assert.deepEqual(lines(strategy.validate(endpoints([{ ports: [{ port: 80 }] }]), context)), ['subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`']);
    assert.deepEqual(lines(strategy.validate(endpoints([{ addresses: [{ ip: 'web' }, { ip: '127.0.0.1' }, { ip: '169.254.169.254' }] }]), context)), [
      'subsets[0].addresses[0].ip: Invalid value: "web": must be a valid IP address, (e.g. 10.9.8.7)',
      'subsets[0].addresses[0].ip: Invalid value: "web": must be a valid IP address',
      'subsets[0].addresses[1].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8)',
      'subsets[0].addresses[2].ip: Invalid value: "169.254.169.254": may not be in the link-local range (169.254.0.0/16)',
    ]);
    assert.match(lines(strategy.validate(endpoints([{ addresses: [{ ip: '10.0.0.1', hostname: 'Web.0' }] }]), context))[0] ?? '', /^subsets\[0\]\.addresses\[0\]\.hostname: Invalid value: "Web\.0": a DNS-1123 label/);
  });

  it('endpoints validation checks ports: names when several, numbers and protocols', () => {
    const causes = lines(strategy.validateUpdate(endpoints([{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }, { name: 'b', port: 70000, protocol: 'ICMP' }] }]), endpoints([]), context));
    assert.deepEqual(causes, [
      'subsets[0].ports[0].name: Required value',
      'subsets[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'subsets[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ]);
  });
});
