import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CidrError, cidrsOverlap, defaultSiteCidr, formatAddress, formatCidr, gatewayAddress, nextFreeAddress, parseCidr, podAddresses } from './ipv4-cidr.js';

test('CIDRs parse, print and refuse host bits, odd sizes and non-addresses', () => {
  assert.equal(formatCidr(parseCidr('10.88.0.0/24')), '10.88.0.0/24');
  assert.throws(() => parseCidr('10.88.0.1/24'), /host bits set; the network is 10.88.0.0\/24/);
  assert.throws(() => parseCidr('10.88.0.0/8'), CidrError);
  assert.throws(() => parseCidr('10.88.0.0/30'), CidrError);
  assert.throws(() => parseCidr('10.256.0.0/24'), CidrError);
  assert.throws(() => parseCidr('010.1.0.0/24'), CidrError);
  assert.throws(() => parseCidr('fd00::/64'), CidrError);
});

test('a /29 has a gateway and five pod addresses, neither network nor broadcast', () => {
  const cidr = parseCidr('192.168.7.8/29');
  assert.equal(formatAddress(gatewayAddress(cidr)), '192.168.7.9');
  assert.deepEqual([...podAddresses(cidr)].map(formatAddress), ['192.168.7.10', '192.168.7.11', '192.168.7.12', '192.168.7.13', '192.168.7.14']);
});

test('allocation goes round robin past the previous address and reports exhaustion', () => {
  const cidr = parseCidr('192.168.7.8/29');
  const [a, b, c] = [...podAddresses(cidr)] as [number, number, number];
  assert.equal(nextFreeAddress(cidr, new Set()), a);
  assert.equal(nextFreeAddress(cidr, new Set([b]), a), c);
  assert.equal(nextFreeAddress(cidr, new Set(podAddresses(cidr))), undefined);
  const last = [...podAddresses(cidr)].at(-1) as number;
  assert.equal(nextFreeAddress(cidr, new Set([last]), last), a);
});

test('overlap is detected across prefix lengths', () => {
  assert.ok(cidrsOverlap(parseCidr('10.0.0.0/16'), parseCidr('10.0.5.0/24')));
  assert.ok(!cidrsOverlap(parseCidr('10.0.4.0/24'), parseCidr('10.0.5.0/24')));
  assert.equal(formatCidr(defaultSiteCidr(3)), '10.244.3.0/24');
  assert.throws(() => defaultSiteCidr(256), /--pod-cidr/);
});
