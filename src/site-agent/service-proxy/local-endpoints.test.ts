import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { clusterHostsFile } from './cluster-dns.js';
import { siteEndpoints, type LocalPod } from './local-endpoints.js';
import type { ProxyEndpoints, ProxyService } from './proxy-model.js';
import { planProxy, type PlannedServer } from './proxy-plan.js';

const A = 'acme:default:vk1';
const svc = (name: string, extra: Partial<ProxyService> = {}): ProxyService => ({
  cluster: A, namespace: 'ns', name, clusterIP: '10.96.0.1', proxyType: 'TCP_PROXY', http2: false, sniNames: [],
  ports: [{ name: 'p', protocol: 'TCP', port: 80, targetPort: 8080 }], selector: { app: name }, ...extra,
});
const pod = (ip: string, extra: Partial<LocalPod> = {}): LocalPod => ({
  cluster: A, namespace: 'ns', ip, labels: { app: 'web' }, ready: true, terminating: false, phase: 'Running', restartPolicy: 'Always', ports: [], ...extra,
});
const eps = (name: string, ready: string[], notReady: string[] = [], port = 8080): ProxyEndpoints => ({ cluster: A, namespace: 'ns', name, subsets: [{ ready, notReady, ports: [{ name: 'p', protocol: 'TCP', port }] }] });

/** The servers the plan gives Service `name`'s port 80. */
function servers(services: ProxyService[], given: ProxyEndpoints[], pods: LocalPod[], name = 'web'): readonly PlannedServer[] {
  const plan = planProxy({ services, endpoints: siteEndpoints(services, given, pods), clusterPods: { [A]: pods.map((p) => p.ip) } });
  return plan.backends.find((b) => b.service.name === name)?.servers ?? [];
}
const view = (list: readonly PlannedServer[]): string[] => list.map((s) => `${s.name}${s.ready ? '' : ' disabled'}`);

describe('siteEndpoints: the site decides about its own pods', () => {
  it('keeps a pod the site sees ready although the control plane lists it not ready (a lease expiry), and takes out one it sees not ready', () => {
    const given = [eps('web', ['10.244.0.3'], ['10.244.0.2'])];
    const pods = [pod('10.244.0.2'), pod('10.244.0.3', { ready: false })];
    assert.deepEqual(view(servers([svc('web')], given, pods)), ['10.244.0.2:8080', '10.244.0.3:8080 disabled']);
  });

  it('adds the site\'s selected pods the control plane does not list, and keeps addresses that are no pod of the site (not adopted yet, hand-made)', () => {
    const given = [eps('web', ['10.244.0.9'])];
    const pods = [pod('10.244.0.2'), pod('10.244.0.4', { labels: { app: 'other' } }), pod('10.244.0.5', { namespace: 'other' }), pod('10.244.0.6', { cluster: 'beta:default:vk1' })];
    assert.deepEqual(view(servers([svc('web')], given, pods)), ['10.244.0.2:8080', '10.244.0.9:8080']);
  });

  it('once the runtime has told every pod of the site, drops a selector Service\'s addresses that are no pod of it (gone, e.g. before a machine restart)', () => {
    const given = [eps('web', ['10.244.0.9', '10.244.0.2'])];
    const pods = [pod('10.244.0.2'), pod('10.244.0.3')];
    const plan = planProxy({ services: [svc('web')], endpoints: siteEndpoints([svc('web')], given, pods, true), clusterPods: { [A]: pods.map((p) => p.ip) } });
    assert.deepEqual(view(plan.backends.find((b) => b.service.name === 'web')?.servers ?? []), ['10.244.0.2:8080', '10.244.0.3:8080']);
  });

  it('resolves named targetPorts through the pod\'s container ports and protocol, leaving out a pod without the port', () => {
    const service = svc('web', { ports: [{ name: 'p', protocol: 'TCP', port: 80, targetPort: 'http' }] });
    const pods = [
      pod('10.244.0.2', { ports: [{ name: 'http', port: 8081, protocol: 'TCP' }] }),
      pod('10.244.0.3', { ports: [{ name: 'http', port: 8082, protocol: 'UDP' }] }),
      pod('10.244.0.4', { ports: [{ name: 'metrics', port: 9100, protocol: 'TCP' }] }),
    ];
    assert.deepEqual(view(servers([service], [], pods)), ['10.244.0.2:8081']);
    assert.deepEqual(view(servers([svc('web', { ports: [{ name: 'p', protocol: 'TCP', port: 80 }] })], [], pods.slice(0, 1))), ['10.244.0.2:80']);
  });

  it('follows kube for terminating pods, publishNotReadyAddresses and pods that will not run again', () => {
    const pods = [
      pod('10.244.0.2', { terminating: true }),
      pod('10.244.0.3', { ready: false }),
      pod('10.244.0.4', { ready: false, phase: 'Succeeded', restartPolicy: 'Never' }),
      pod('10.244.0.5', { ready: false, phase: 'Failed', restartPolicy: 'OnFailure' }),
    ];
    const given = [eps('web', ['10.244.0.2', '10.244.0.4'])];
    assert.deepEqual(view(servers([svc('web')], given, pods)), ['10.244.0.3:8080 disabled', '10.244.0.5:8080 disabled']);
    assert.deepEqual(view(servers([svc('web', { publishNotReadyAddresses: true })], given, pods)), ['10.244.0.2:8080', '10.244.0.3:8080', '10.244.0.4:8080', '10.244.0.5:8080']);
  });

  it('takes the control plane\'s Endpoints of a Service without a selector, but a pod the site sees not ready or terminating is not ready', () => {
    const manual = svc('ext', { selector: undefined });
    const given = [eps('ext', ['10.244.0.2', '10.244.0.3', '10.244.0.4', '192.0.2.1'], [], 9000)];
    const pods = [pod('10.244.0.2', { ready: false }), pod('10.244.0.3', { terminating: true }), pod('10.244.0.4')];
    assert.deepEqual(view(servers([manual], given, pods, 'ext')), ['10.244.0.2:9000 disabled', '10.244.0.3:9000 disabled', '10.244.0.4:9000', '192.0.2.1:9000']);
  });

  it('gives a headless Service\'s names from the site\'s own ready pods', () => {
    const headless = svc('db', { clusterIP: 'None', ports: [], selector: { app: 'db' } });
    const pods = [pod('10.244.0.2', { labels: { app: 'db' } }), pod('10.244.0.3', { labels: { app: 'db' }, ready: false })];
    const given: ProxyEndpoints[] = [{ cluster: A, namespace: 'ns', name: 'db', subsets: [{ ready: ['10.244.0.3'], notReady: ['10.244.0.2'], ports: [] }] }];
    assert.equal(clusterHostsFile([headless], siteEndpoints([headless], given, pods)), '10.244.0.2 db.ns.svc.cluster.local db.ns\n');
  });

  it('never lets the control plane take a healthy local pod out of a local Service, nor keep a not-ready one in (property)', () => {
    const ips = fc.integer({ min: 2, max: 40 }).map((n) => `10.244.0.${n}`);
    const local = fc.record({ ip: ips, ready: fc.boolean(), terminating: fc.boolean(), selected: fc.boolean(), named: fc.boolean() });
    const claim = fc.record({ ip: ips, ready: fc.boolean() });
    fc.assert(
      fc.property(fc.uniqueArray(local, { selector: (p) => p.ip }), fc.array(claim), fc.boolean(), (locals, claims, namedTarget) => {
        const service = svc('web', namedTarget ? { ports: [{ name: 'p', protocol: 'TCP', port: 80, targetPort: 'http' }] } : {});
        const pods = locals.map((p) => pod(p.ip, { ready: p.ready, terminating: p.terminating, labels: { app: p.selected ? 'web' : 'x' }, ports: p.named ? [{ name: 'http', port: 8080, protocol: 'TCP' }] : [] }));
        const given = [eps('web', claims.filter((c) => c.ready).map((c) => c.ip), claims.filter((c) => !c.ready).map((c) => c.ip))];
        const planned = new Map(servers([service], given, pods).map((s) => [s.address, s]));
        for (const p of locals) {
          const serves = p.selected && (!namedTarget || p.named);
          const server = planned.get(p.ip);
          if (serves && p.ready && !p.terminating) assert.equal(server?.ready, true, `${p.ip} is healthy here`);
          else assert.notEqual(server?.ready, true, `${p.ip} must not be served`);
        }
        for (const c of claims) {
          // An address that is no pod of the site keeps what the control plane says.
          if (!locals.some((p) => p.ip === c.ip)) assert.equal(planned.get(c.ip)?.ready, claims.some((o) => o.ip === c.ip && o.ready));
        }
      }),
    );
  });
});
