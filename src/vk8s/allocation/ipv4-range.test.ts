import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ipv4Range } from './ipv4-range.js';

describe('Ipv4Range', () => {
  it('Ipv4Range excludes the network and broadcast addresses like kube ipallocator', () => {
    const range = Ipv4Range.parse('10.96.0.0/16');
    assert.equal(range.size, 65534);
    assert.equal(range.addressAt(0), '10.96.0.1');
    assert.equal(range.addressAt(65533), '10.96.255.254');
    assert.equal(range.offsetOf('10.96.0.1'), 0);
    assert.equal(range.offsetOf('10.96.0.0'), undefined);
    assert.equal(range.offsetOf('10.96.255.255'), undefined);
    assert.equal(range.offsetOf('10.97.0.1'), undefined);
    assert.equal(range.offsetOf('::ffff:10.96.1.0'), 255);
    assert.equal(range.offsetOf('fd00::1'), undefined);
    assert.throws(() => range.addressAt(65534), RangeError);
  });

  it('Ipv4Range masks host bits and prints the network', () => {
    assert.equal(Ipv4Range.parse('192.168.7.9/24').toString(), '192.168.7.0/24');
    assert.equal(Ipv4Range.parse('10.0.0.0/31').size, 0);
    assert.throws(() => Ipv4Range.parse('10.0.0.0'), /not an IPv4 CIDR/);
    assert.throws(() => Ipv4Range.parse('fd00::/64'), /not an IPv4 CIDR/);
    assert.throws(() => Ipv4Range.parse('10.0.0.0/33'), /not an IPv4 CIDR/);
  });
});
