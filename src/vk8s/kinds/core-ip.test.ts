import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCidr, parseIp, validateNonSpecialIp } from './core-ip.js';

describe('core IP rules', () => {
  it('parseIp accepts what Go net.ParseIP accepts', () => {
    assert.deepEqual(parseIp('10.1.2.3'), Uint8Array.from([10, 1, 2, 3]));
    assert.deepEqual(parseIp('::ffff:10.1.2.3'), Uint8Array.from([10, 1, 2, 3]));
    assert.equal(parseIp('fd00::1')?.length, 16);
    assert.equal(parseIp('1:2:3:4:5:6:7:8')?.length, 16);
    assert.equal(parseIp('::')?.length, 16);
    assert.equal(parseIp('64:ff9b::1.2.3.4')?.[15], 4);
    for (const bad of ['', '1.2.3', '1.2.3.256', '1.2.3.4.5', 'a.b.c.d', '1::2::3', '1:2:3:4:5:6:7', 'fe80::1%eth0', '12345::', '1.2.3.4::']) {
      assert.equal(parseIp(bad), undefined, bad);
    }
  });

  it('validateNonSpecialIp rejects unspecified, loopback and link-local addresses', () => {
    assert.deepEqual(validateNonSpecialIp('10.0.0.1', 'ip'), []);
    const message = (ip: string): string[] => validateNonSpecialIp(ip, 'ip').map((c) => c.message);
    assert.deepEqual(message('0.0.0.0'), ['Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)']);
    assert.deepEqual(message('127.0.0.2'), ['Invalid value: "127.0.0.2": may not be in the loopback range (127.0.0.0/8)']);
    assert.deepEqual(message('::1'), ['Invalid value: "::1": may not be in the loopback range (127.0.0.0/8)']);
    assert.deepEqual(message('169.254.1.1'), ['Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16)']);
    assert.deepEqual(message('fe80::1'), ['Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16)']);
    assert.deepEqual(message('224.0.0.5'), ['Invalid value: "224.0.0.5": may not be in the link-local multicast range (224.0.0.0/24)']);
  });

  it('isCidr follows net.ParseCIDR', () => {
    assert.ok(isCidr('10.0.0.0/8'));
    assert.ok(isCidr('fd00::/64'));
    assert.ok(!isCidr('10.0.0.0/33'));
    assert.ok(!isCidr('10.0.0.0'));
    assert.ok(!isCidr('x/8'));
  });
});
