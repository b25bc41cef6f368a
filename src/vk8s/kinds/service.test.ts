import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { validateService, validateServiceUpdate } from './core-service-rules.js';
import { serviceStrategy } from './service.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

function service(spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec, ...extra };
}

/** Defaults then runs kube's own rules (the platform's ClusterIP-only rule is tested on its own below). */
function created(spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): string[] {
  const object = service(spec, extra);
  serviceStrategy.defaults(object);
  return lines(validateService(object));
}

describe('Service strategy', () => {
  it('service defaults type, session affinity, protocol and targetPort like kube 1.17', () => {
    const object = service({ selector: { app: 'web' }, ports: [{ port: 80 }, { port: 443, targetPort: 'https', protocol: 'UDP' }] });
    serviceStrategy.defaults(object);
    assert.deepEqual(object.spec, {
      selector: { app: 'web' },
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 443, targetPort: 'https', protocol: 'UDP' },
      ],
      sessionAffinity: 'None',
      type: 'ClusterIP',
    });
  });

  it('service defaults externalTrafficPolicy for NodePort and LoadBalancer, and ClientIP affinity timeout', () => {
    const nodePort = service({ type: 'NodePort', ports: [{ port: 80 }], sessionAffinity: 'ClientIP' });
    serviceStrategy.defaults(nodePort);
    assert.equal((nodePort.spec as { externalTrafficPolicy: string }).externalTrafficPolicy, 'Cluster');
    assert.deepEqual((nodePort.spec as { sessionAffinityConfig: unknown }).sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    const clusterIp = service({ ports: [{ port: 80 }], sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } });
    serviceStrategy.defaults(clusterIp);
    assert.equal((clusterIp.spec as { externalTrafficPolicy?: string }).externalTrafficPolicy, undefined);
    assert.equal((clusterIp.spec as { sessionAffinityConfig?: unknown }).sessionAffinityConfig, undefined, 'None affinity drops the config');
  });

  it('service validation accepts ClusterIP, headless, NodePort and ExternalName services', () => {
    assert.deepEqual(created({ selector: { app: 'web' }, ports: [{ port: 80 }] }), []);
    assert.deepEqual(created({ clusterIP: 'None', selector: { app: 'web' } }), []);
    assert.deepEqual(created({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), []);
    assert.deepEqual(created({ type: 'ExternalName', externalName: 'db.example.com' }), []);
    assert.deepEqual(created({ clusterIP: '10.96.0.10', ports: [{ port: 53, protocol: 'UDP', name: 'dns' }, { port: 53, name: 'dns-tcp' }] }), []);
  });

  it('service validation requires ports unless headless or ExternalName', () => {
    assert.deepEqual(created({}), ['spec.ports: Required value']);
  });

  it('service validation checks port numbers, names and protocols with kube messages', () => {
    assert.deepEqual(created({ ports: [{ port: 0 }] }), [
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
      'spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive',
    ]);
    assert.deepEqual(created({ ports: [{ port: 80 }, { port: 81 }] }), ['spec.ports[0].name: Required value', 'spec.ports[1].name: Required value']);
    assert.deepEqual(created({ ports: [{ port: 80, name: 'a' }, { port: 81, name: 'a' }] }), ['spec.ports[1].name: Duplicate value: "a"']);
    assert.match(created({ ports: [{ port: 80, name: 'Http' }] })[0] ?? '', /^spec\.ports\[0\]\.name: Invalid value: "Http": a DNS-1123 label must consist/);
    assert.deepEqual(created({ ports: [{ port: 80, protocol: 'HTTP' }] }), ['spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']);
    assert.deepEqual(created({ ports: [{ port: 80, targetPort: '8080' }] }), ['spec.ports[0].targetPort: Invalid value: "8080": must contain at least one letter or number (a-z, 0-9)']);
    assert.deepEqual(created({ ports: [{ port: 80, targetPort: 'web--http-port-x' }] }), [
      'spec.ports[0].targetPort: Invalid value: "web--http-port-x": must be no more than 15 characters',
      'spec.ports[0].targetPort: Invalid value: "web--http-port-x": must not contain consecutive hyphens',
    ]);
  });

  it('service validation rejects duplicate ports and node ports', () => {
    assert.deepEqual(created({ type: 'NodePort', ports: [{ port: 80, name: 'a', nodePort: 30001 }, { port: 80, name: 'b', nodePort: 30001 }] }), [
      'spec.ports[1].nodePort: Duplicate value: 30001',
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
  });

  it('service validation restricts nodePort and externalTrafficPolicy by type', () => {
    assert.deepEqual(created({ ports: [{ port: 80, nodePort: 30001 }] }), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
    assert.deepEqual(created({ ports: [{ port: 80 }], externalTrafficPolicy: 'Local' }), [
      'spec.externalTrafficPolicy: Invalid value: "Local": ExternalTrafficPolicy can only be set on NodePort and LoadBalancer service',
    ]);
    assert.deepEqual(created({ type: 'NodePort', ports: [{ port: 80 }], externalTrafficPolicy: 'Everywhere' }), [
      'spec.externalTrafficPolicy: Invalid value: "Everywhere": ExternalTrafficPolicy must be empty, Cluster or Local',
    ]);
    assert.deepEqual(created({ type: 'NodePort', ports: [{ port: 80 }], healthCheckNodePort: 30100 }), [
      'spec.healthCheckNodePort: Invalid value: 30100: HealthCheckNodePort can only be set on LoadBalancer service with ExternalTrafficPolicy=Local',
    ]);
    assert.deepEqual(created({ type: 'LoadBalancer', ports: [{ port: 80 }], externalTrafficPolicy: 'Local', healthCheckNodePort: 30100 }), []);
  });

  it('service validation checks the type, clusterIP and type-specific clusterIP rules', () => {
    assert.deepEqual(created({ type: 'Internal', ports: [{ port: 80 }] }), [
      'spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
    assert.deepEqual(created({ clusterIP: '10.96.0.300', ports: [{ port: 80 }] }), ["spec.clusterIP: Invalid value: \"10.96.0.300\": must be empty, 'None', or a valid IP address"]);
    assert.deepEqual(created({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] }), ["spec.clusterIP: Invalid value: \"None\": may not be set to 'None' for NodePort services"]);
    assert.deepEqual(created({ type: 'LoadBalancer', clusterIP: 'None', ports: [{ port: 10250 }] }), [
      'spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet',
      "spec.clusterIP: Invalid value: \"None\": may not be set to 'None' for LoadBalancer services",
    ]);
    assert.deepEqual(created({ type: 'LoadBalancer', ports: [{ port: 80, name: 'a' }, { port: 81, name: 'b', protocol: 'UDP' }] }), [
      'spec.ports: Invalid value: [{"port":80,"name":"a","protocol":"TCP","targetPort":80},{"port":81,"name":"b","protocol":"UDP","targetPort":81}]: cannot create an external load balancer with mix protocols',
    ]);
  });

  it('service validation applies the ExternalName rules', () => {
    assert.deepEqual(created({ type: 'ExternalName' }), ['spec.externalName: Required value']);
    assert.deepEqual(created({ type: 'ExternalName', externalName: 'db.example.com', clusterIP: '10.96.0.5' }), [
      'spec.clusterIP: Forbidden: must be empty for ExternalName services',
    ]);
    assert.match(created({ type: 'ExternalName', externalName: 'DB_host' })[0] ?? '', /^spec\.externalName: Invalid value: "DB_host": a DNS-1123 subdomain/);
  });

  it('service validation checks selectors, external IPs, affinity and source ranges', () => {
    assert.match(created({ ports: [{ port: 80 }], selector: { 'a b': 'x' } })[0] ?? '', /^spec\.selector: Invalid value: "a b"/);
    assert.deepEqual(created({ ports: [{ port: 80 }], externalIPs: ['1.2.3.4', 'nope', '127.0.0.1'] }), [
      'spec.externalIPs[1]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7)',
      'spec.externalIPs[2]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8)',
    ]);
    assert.deepEqual(created({ ports: [{ port: 80 }], sessionAffinity: 'Sticky' }), ['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"']);
    assert.deepEqual(created({ ports: [{ port: 80 }], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 90000 } } }), [
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 90000: must be greater than 0 and less than 86400',
    ]);
    assert.deepEqual(created({ ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8'] }), [
      "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
    ]);
    assert.deepEqual(created({ type: 'LoadBalancer', ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8', 'x'] }), [
      'spec.LoadBalancerSourceRanges: Invalid value: "[10.0.0.0/8 x]": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ',
    ]);
    const annotated = { metadata: { name: 'web', namespace: 'default', annotations: { 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.0/8, 1.2.3.0/24' } } };
    assert.deepEqual(created({ type: 'LoadBalancer', ports: [{ port: 80 }] }, annotated), []);
  });

  it('service update keeps an assigned clusterIP immutable, as kube words it', () => {
    const old = service({ clusterIP: '10.96.0.10', ports: [{ port: 80 }] });
    serviceStrategy.defaults(old);
    const changed = service({ clusterIP: '10.96.0.11', ports: [{ port: 80 }] });
    serviceStrategy.defaults(changed);
    assert.deepEqual(lines(validateServiceUpdate(changed, old)), ['spec.clusterIP: Invalid value: "10.96.0.11": field is immutable']);
    const dropped = service({ ports: [{ port: 80 }] });
    serviceStrategy.defaults(dropped);
    assert.deepEqual(lines(validateServiceUpdate(dropped, old)), ['spec.clusterIP: Invalid value: "": field is immutable']);
    const toExternal = service({ type: 'ExternalName', externalName: 'x.example.com' });
    serviceStrategy.defaults(toExternal);
    assert.deepEqual(validateServiceUpdate(toExternal, old), []);
  });

  it('service create resets status and update keeps it; the status subresource checks ingress', () => {
    const object = service({ ports: [{ port: 80 }] }, { status: { loadBalancer: { ingress: [{ ip: '1.1.1.1' }] } } });
    serviceStrategy.prepareForCreate(object);
    assert.deepEqual(object.status, { loadBalancer: {} });
    const next = service({ ports: [{ port: 81 }] }, { status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } } });
    serviceStrategy.prepareForUpdate(next, object);
    assert.deepEqual(next.status, { loadBalancer: {} });
    const status = serviceStrategy.status;
    assert.ok(status !== undefined);
    const withIngress = service({}, { status: { loadBalancer: { ingress: [{ ip: 'x' }, { hostname: '1.2.3.4' }] } } });
    assert.deepEqual(lines(status.validateUpdate(withIngress, object, context)), [
      'status.loadBalancer.ingress[0].ip: Invalid value: "x": must be a valid IP address',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address',
    ]);
  });

  it('service names are DNS-1035 labels and services allocate cluster IPs', () => {
    assert.equal(serviceStrategy.nameRule, 'dns1035Label');
    assert.ok(serviceStrategy.allocation !== undefined);
  });

  it('service strategy admits only ClusterIP services (headless included), as the platform does', () => {
    const nodePort = service({ type: 'NodePort', ports: [{ port: 80 }] });
    serviceStrategy.defaults(nodePort);
    assert.deepEqual(lines(serviceStrategy.validate(nodePort, context)), ['spec.type: Unsupported value: "NodePort": supported values: "ClusterIP"']);
    const headless = service({ clusterIP: 'None', selector: { app: 'web' }, ports: [{ port: 80 }] });
    serviceStrategy.defaults(headless);
    assert.deepEqual(serviceStrategy.validate(headless, context), []);
    const old = service({ type: 'ClusterIP', clusterIP: '10.96.0.10', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None' });
    const toLoadBalancer = service({ ...(old.spec as Record<string, unknown>), type: 'LoadBalancer' });
    assert.ok(lines(serviceStrategy.validateUpdate(toLoadBalancer, old, context)).includes('spec.type: Unsupported value: "LoadBalancer": supported values: "ClusterIP"'));
  });
});
