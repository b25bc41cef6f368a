import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { endpointsPrinter } from './endpoints-printer.js';
import { servicePrinter } from './service-printer.js';
import { DAY, MINUTE, NOW, meta, namedDoc, object } from './testing/fixtures.js';

describe('service printer', () => {
  const printer = servicePrinter(namedDoc);
  const service = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject =>
    object('v1', 'Service', meta('web', 3 * DAY), { spec: { selector: { app: 'web' }, ...spec }, status });

  it('service printer prints a ClusterIP service', () => {
    const s = service({ type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }] });
    assert.deepEqual(printer.cells(s, NOW), ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP', '3d', 'app=web']);
  });

  it('service printer prints node ports and several ports', () => {
    const s = service({
      type: 'NodePort',
      clusterIP: '10.96.0.11',
      ports: [
        { port: 80, nodePort: 30080, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
      ],
    });
    assert.deepEqual(printer.cells(s, NOW).slice(1, 5), ['NodePort', '10.96.0.11', '<none>', '80:30080/TCP,53/UDP']);
  });

  it('service printer shows external IPs for ClusterIP and NodePort services', () => {
    const s = service({ type: 'ClusterIP', clusterIP: '10.96.0.12', externalIPs: ['192.0.2.1', '192.0.2.2'], ports: [{ port: 443, protocol: 'TCP' }] });
    assert.equal(printer.cells(s, NOW)[3], '192.0.2.1,192.0.2.2');
  });

  it('service printer shows <pending> for a load balancer without ingress, then its sorted addresses', () => {
    const pending = service({ type: 'LoadBalancer', clusterIP: '10.96.0.13', ports: [{ port: 80, nodePort: 31000, protocol: 'TCP' }] });
    assert.equal(printer.cells(pending, NOW)[3], '<pending>');
    const ready = service({ type: 'LoadBalancer', clusterIP: '10.96.0.13' }, { loadBalancer: { ingress: [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }, { ip: '203.0.113.9' }] } });
    assert.equal(printer.cells(ready, NOW)[3], '203.0.113.9,lb.example.com', 'de-duplicated and sorted, never clipped in the server');
    const both = service({ type: 'LoadBalancer', clusterIP: '10.96.0.13', externalIPs: ['192.0.2.7'] }, { loadBalancer: { ingress: [{ ip: '203.0.113.9' }] } });
    assert.equal(printer.cells(both, NOW)[3], '203.0.113.9,192.0.2.7');
    const onlyExternal = service({ type: 'LoadBalancer', clusterIP: '10.96.0.13', externalIPs: ['192.0.2.7'] });
    assert.equal(printer.cells(onlyExternal, NOW)[3], '192.0.2.7');
  });

  it('service printer prints an ExternalName service with <none> cluster IP, ports and selector', () => {
    const s = object('v1', 'Service', meta('db', MINUTE), { spec: { type: 'ExternalName', externalName: 'db.example.com' } });
    assert.deepEqual(printer.cells(s, NOW), ['db', 'ExternalName', '<none>', 'db.example.com', '<none>', '60s', '<none>']);
  });

  it('service printer prints a headless service and reads an absent type and protocol as kube\'s defaults', () => {
    const s = object('v1', 'Service', meta('headless', MINUTE), { spec: { clusterIP: 'None', ports: [{ port: 5432 }] } });
    assert.deepEqual(printer.cells(s, NOW).slice(1, 5), ['ClusterIP', 'None', '<none>', '5432/TCP']);
  });

  it('service printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.priority, c.description]),
      [
        ['Name', 0, 'ObjectMeta.name'],
        ['Type', 0, 'ServiceSpec.type'],
        ['Cluster-IP', 0, 'ServiceSpec.clusterIP'],
        ['External-IP', 0, 'ServiceSpec.externalIPs'],
        ['Port(s)', 0, 'ServiceSpec.ports'],
        ['Age', 0, 'ObjectMeta.creationTimestamp'],
        ['Selector', 1, 'ServiceSpec.selector'],
      ],
    );
  });
});

describe('endpoints printer', () => {
  const printer = endpointsPrinter(namedDoc);
  const endpoints = (subsets?: unknown[]): KubeObject => object('v1', 'Endpoints', meta('web', 5 * MINUTE), subsets === undefined ? {} : { subsets });

  it('endpoints printer prints ip:port for every port and ready address', () => {
    const e = endpoints([{ addresses: [{ ip: '10.0.0.5' }, { ip: '10.0.0.6' }], notReadyAddresses: [{ ip: '10.0.0.7' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }]);
    assert.deepEqual(printer.cells(e, NOW), ['web', '10.0.0.5:8080,10.0.0.6:8080', '5m']);
  });

  it('endpoints printer shows three and counts the rest', () => {
    const e = endpoints([
      {
        addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }],
        ports: [
          { name: 'http', port: 80 },
          { name: 'https', port: 443 },
        ],
      },
      { addresses: [{ ip: '10.0.1.1' }], ports: [{ port: 9000 }] },
    ]);
    assert.equal(printer.cells(e, NOW)[1], '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 2 more...');
  });

  it('endpoints printer prints bare IPs without ports and brackets IPv6 with ports', () => {
    assert.equal(printer.cells(endpoints([{ addresses: [{ ip: '10.0.0.9' }] }]), NOW)[1], '10.0.0.9');
    assert.equal(printer.cells(endpoints([{ addresses: [{ ip: 'fd00::5' }], ports: [{ port: 80 }] }]), NOW)[1], '[fd00::5]:80');
  });

  it('endpoints printer prints <none> without subsets and "" without ready addresses', () => {
    assert.equal(printer.cells(endpoints(), NOW)[1], '<none>');
    assert.equal(printer.cells(endpoints([]), NOW)[1], '<none>');
    assert.equal(printer.cells(endpoints([{ notReadyAddresses: [{ ip: '10.0.0.7' }], ports: [{ port: 80 }] }]), NOW)[1], '');
  });

  it('endpoints printer defines kube 1.17 columns', () => {
    assert.deepEqual(printer.columns.map((c) => [c.name, c.priority, c.description]), [['Name', 0, 'ObjectMeta.name'], ['Endpoints', 0, 'Endpoints.subsets'], ['Age', 0, 'ObjectMeta.creationTimestamp']]);
  });
});
