import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { endpointSubsets, findPort } from './endpoint-subsets.js';

const service = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ...spec } });
const pod = (name: string, state: { ip?: string; ready?: boolean; node?: string; phase?: string; terminating?: boolean; httpPort?: number; restartPolicy?: string; hostname?: string; subdomain?: string }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', uid: `${name}-uid`, resourceVersion: '7', labels: { app: 'web' }, ...(state.terminating === true ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
  spec: {
    ...(state.node === undefined ? {} : { nodeName: state.node }),
    ...(state.restartPolicy === undefined ? {} : { restartPolicy: state.restartPolicy }),
    ...(state.hostname === undefined ? {} : { hostname: state.hostname }),
    ...(state.subdomain === undefined ? {} : { subdomain: state.subdomain }),
    containers: [{ name: 'c', ports: [{ name: 'http', containerPort: state.httpPort ?? 8080, protocol: 'TCP' }] }],
  },
  status: { phase: state.phase ?? 'Running', ...(state.ip === undefined ? {} : { podIP: state.ip }), conditions: [{ type: 'Ready', status: state.ready === false ? 'False' : 'True' }] },
});
const ports = [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP' }];

describe('endpoint subsets', () => {
  it('endpoint subsets list ready pods of every site, with node and pod reference, and not-ready ones apart', () => {
    const subsets = endpointSubsets(service({ ports }), [pod('a-1', { ip: '10.0.0.2', node: 'site-a-n1' }), pod('b-1', { ip: '10.0.0.3', node: 'site-b-n1', ready: false })]);
    assert.deepEqual(subsets, [
      {
        addresses: [{ ip: '10.0.0.2', nodeName: 'site-a-n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a-1', uid: 'a-1-uid', resourceVersion: '7' } }],
        notReadyAddresses: [{ ip: '10.0.0.3', nodeName: 'site-b-n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b-1', uid: 'b-1-uid', resourceVersion: '7' } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
  });

  it('endpoint subsets keep the same IP on two sites as two addresses', () => {
    const subsets = endpointSubsets(service({ ports }), [pod('a-1', { ip: '10.0.0.2', node: 'site-a-n1' }), pod('b-1', { ip: '10.0.0.2', node: 'site-b-n1' })]);
    assert.deepEqual(subsets[0]?.addresses?.map((a) => [a.ip, a.nodeName]), [
      ['10.0.0.2', 'site-a-n1'],
      ['10.0.0.2', 'site-b-n1'],
    ]);
  });

  it('endpoint subsets skip pods without an IP and terminating ones unless not-ready addresses are published', () => {
    const pods = [pod('no-ip', {}), pod('going', { ip: '10.0.0.4', terminating: true }), pod('done', { ip: '10.0.0.5', phase: 'Succeeded', ready: false, restartPolicy: 'Never' })];
    assert.deepEqual(endpointSubsets(service({ ports }), pods), []);
    const published = endpointSubsets(service({ ports, publishNotReadyAddresses: true }), pods);
    assert.deepEqual(published[0]?.addresses?.map((a) => a.targetRef?.name), ['going', 'done']);
  });

  it('endpoint subsets resolve named target ports per pod and group pods by the ports they serve', () => {
    const subsets = endpointSubsets(service({ ports: [...ports, { name: 'metrics', port: 9090, targetPort: 9090, protocol: 'TCP' }] }), [
      pod('p1', { ip: '10.0.0.2', httpPort: 8080 }),
      pod('p2', { ip: '10.0.0.3', httpPort: 8081 }),
    ]);
    assert.equal(subsets.length, 3);
    assert.deepEqual(subsets.map((s) => [s.ports?.map((p) => p.port), s.addresses?.map((a) => a.ip)]), [
      [[8080], ['10.0.0.2']],
      [[8081], ['10.0.0.3']],
      [[9090], ['10.0.0.2', '10.0.0.3']],
    ]);
  });

  it('endpoint subsets give a headless Service without ports its addresses and hostnames of its subdomain', () => {
    const subsets = endpointSubsets(service({ clusterIP: 'None' }), [pod('web-a-0', { ip: '10.0.0.2', hostname: 'web-0', subdomain: 'web' }), pod('other', { ip: '10.0.0.3', hostname: 'x', subdomain: 'elsewhere' })]);
    assert.deepEqual(subsets.map((s) => s.addresses?.map((a) => a.hostname ?? '-')), [['web-0', '-']]);
    assert.equal(subsets[0]?.ports, undefined);
    assert.deepEqual(endpointSubsets(service({}), [pod('p', { ip: '10.0.0.2' })]), [], 'a ClusterIP Service without ports has no endpoints');
  });

  it('endpoint subsets find a named port only with the matching protocol', () => {
    const p = pod('p', { ip: '10.0.0.2' });
    assert.equal(findPort(p, { port: 80, targetPort: 'http', protocol: 'TCP' }), 8080);
    assert.equal(findPort(p, { port: 80, targetPort: 'http', protocol: 'UDP' }), undefined);
    assert.equal(findPort(p, { port: 80, targetPort: 'nope' }), undefined);
    assert.equal(findPort(p, { port: 80 }), 80);
  });
});
