import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProxyService, SiteProxyInput } from './proxy-model.js';
import { planProxy } from './proxy-plan.js';
import { clusterDestinations } from './service-destinations.js';

const A = 'acme:default:vk1';
const B = 'beta:default:vk1';
const C = 'corp:default:vk1';
const svc = (cluster: string, name: string, ip: string, port: number): ProxyService => ({
  cluster,
  namespace: 'ns',
  name,
  clusterIP: ip,
  proxyType: 'TCP_PROXY',
  http2: false,
  sniNames: [],
  ports: [{ name: 'p', protocol: 'TCP', port }],
});

test('each cluster may open its own name server and the frontends that route it: a shared ClusterIP:port for both, no other cluster\'s', () => {
  const input: SiteProxyInput = {
    services: [svc(A, 'web', '10.96.0.1', 80), svc(B, 'db', '10.96.0.1', 80), svc(B, 'cache', '10.96.0.9', 6379)],
    endpoints: [],
    clusterPods: { [A]: ['10.244.0.2'], [B]: ['10.244.0.3'] },
  };
  const nameservers = new Map([[A, '169.254.20.10'], [B, '169.254.20.11'], [C, '169.254.20.12']]);
  const byCluster = clusterDestinations(planProxy(input), nameservers);
  assert.deepEqual(byCluster.get(A), [
    { address: '169.254.20.10', protocol: 'udp', port: 53 },
    { address: '169.254.20.10', protocol: 'tcp', port: 53 },
    { address: '10.96.0.1', protocol: 'tcp', port: 80 },
  ]);
  assert.deepEqual(byCluster.get(B), [
    { address: '169.254.20.11', protocol: 'udp', port: 53 },
    { address: '169.254.20.11', protocol: 'tcp', port: 53 },
    { address: '10.96.0.1', protocol: 'tcp', port: 80 },
    { address: '10.96.0.9', protocol: 'tcp', port: 6379 },
  ]);
  assert.deepEqual(byCluster.get(C), [
    { address: '169.254.20.12', protocol: 'udp', port: 53 },
    { address: '169.254.20.12', protocol: 'tcp', port: 53 },
  ]);
});
