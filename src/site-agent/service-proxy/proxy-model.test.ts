import assert from 'node:assert/strict';
import { it } from 'node:test';
import { clusterIdOf, proxyEndpointsOf, proxyServiceOf } from './proxy-model.js';

it('reads Services and Endpoints of a cluster, keeping only the addresses on the site', () => {
  const cluster = clusterIdOf('acme', 'default', 'vk1');
  assert.equal(cluster, 'acme:default:vk1');
  const service = proxyServiceOf(cluster, {
    apiVersion: 'v1', kind: 'Service',
    metadata: { name: 'web', namespace: 'prod', annotations: { 'svc.io/proxy-type': 'HTTP_PROXY', 'svc.io/http2-enable': 'true', 'svc.io/sni-names': 'a.example', 'service.alpha.kubernetes.io/tolerate-unready-endpoints': 'true' } },
    spec: { clusterIP: '10.96.0.4', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] },
  });
  assert.deepEqual(service, {
    cluster, namespace: 'prod', name: 'web', clusterIP: '10.96.0.4', proxyType: 'HTTP_PROXY', http2: true, sniNames: ['a.example'],
    ports: [{ name: 'http', protocol: 'TCP', port: 80, targetPort: 8080 }, { name: '', protocol: 'UDP', port: 53, targetPort: 'dns' }],
    selector: { app: 'web' }, publishNotReadyAddresses: true,
  });
  assert.equal(proxyServiceOf(cluster, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'm' }, spec: { selector: {}, ports: [] } }).selector, undefined);
  const endpoints = proxyEndpointsOf(cluster, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'prod' }, subsets: [{ addresses: [{ ip: '10.244.0.2', nodeName: 'here-n1' }, { ip: '10.244.0.2', nodeName: 'there-n1' }, { ip: '10.244.9.2' }], notReadyAddresses: [{ ip: '10.244.0.3', nodeName: 'here-n1' }], ports: [{ name: 'http', port: 8080 }] }] }, (a) => (a.nodeName === undefined ? a.ip.startsWith('10.244.0.') : a.nodeName === 'here-n1'));
  assert.deepEqual(endpoints.subsets, [{ ready: ['10.244.0.2'], notReady: ['10.244.0.3'], ports: [{ name: 'http', protocol: 'TCP', port: 8080 }] }]);
});
