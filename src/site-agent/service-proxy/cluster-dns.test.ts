import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clusterHostsFile, dnsmasqArguments } from './cluster-dns.js';
import type { ProxyService } from './proxy-model.js';

const svc = (name: string, namespace: string, clusterIP: string): ProxyService => ({ cluster: 'a:b:c', namespace, name, clusterIP, proxyType: 'TCP_PROXY', http2: false, sniNames: [], ports: [] });

describe('cluster DNS', () => {
  it('maps each Service\'s FQDN and <service>.<namespace> to its ClusterIP, headless ones to their ready endpoints, sorted', () => {
    const hosts = clusterHostsFile([svc('web', 'prod', '10.96.0.9'), svc('db', 'prod', 'None'), svc('web', 'dev', '10.96.0.3')], [{ cluster: 'a:b:c', namespace: 'prod', name: 'db', subsets: [{ ready: ['10.244.0.5'], notReady: ['10.244.0.6'], ports: [] }] }]);
    assert.equal(hosts, '10.244.0.5 db.prod.svc.cluster.local db.prod\n10.96.0.3 web.dev.svc.cluster.local web.dev\n10.96.0.9 web.prod.svc.cluster.local web.prod\n');
  });

  it('gives dnsmasq only its cluster\'s hosts on its own address', () => {
    const args = dnsmasqArguments({ listenAddress: '10.244.3.2', hostsDir: '/run/d/hosts', pidFile: '/run/d/pid' });
    for (const arg of ['--no-resolv', '--no-hosts', '--hostsdir=/run/d/hosts', '--listen-address=10.244.3.2', '--bind-interfaces', '--keep-in-foreground']) assert.ok(args.includes(arg), arg);
  });
});
