import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podResolvConf } from './pod-dns.js';

describe('a pod\'s resolv.conf', () => {
  it('ClusterFirst (the default): the cluster\'s server, Kubernetes\' search path and ndots:5', () => {
    assert.equal(podResolvConf({}, 'prod', '169.254.20.10'), 'nameserver 169.254.20.10\nsearch prod.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n');
  });

  it('merges dnsConfig as kubelet: servers and searches appended, options replaced by name, glibc\'s limits kept', () => {
    const text = podResolvConf(
      { dnsConfig: { nameservers: ['10.0.0.1', '10.0.0.2', '10.0.0.3'], searches: ['a.example', 'b.example', 'c.example', 'd.example'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] } },
      'prod',
      '169.254.20.10',
    );
    assert.equal(text, 'nameserver 169.254.20.10\nnameserver 10.0.0.1\nnameserver 10.0.0.2\nsearch prod.svc.cluster.local svc.cluster.local cluster.local a.example b.example c.example\noptions ndots:2 edns0\n');
  });

  it('None and Default: dnsConfig alone (a site reaches no outside server)', () => {
    for (const dnsPolicy of ['None', 'Default']) {
      assert.equal(podResolvConf({ dnsPolicy, dnsConfig: { nameservers: ['10.0.0.1'], searches: ['x.example'] } }, 'prod', '169.254.20.10'), 'nameserver 10.0.0.1\nsearch x.example\n');
    }
    assert.equal(podResolvConf({ dnsPolicy: 'None' }, 'prod', '169.254.20.10'), '');
  });
});
