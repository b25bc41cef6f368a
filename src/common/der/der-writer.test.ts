import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WORKLOAD_IDENTITY_OID } from '../../identity/identity-extension.js';
import { openssl } from '../../identity/testing/openssl.js';
import { certificateParts, readTime } from './certificate-parts.js';
import { readNode, readOid } from './der-reader.js';
import { oid, time, tlv, unsignedInteger } from './der-writer.js';

describe('the DER writer', () => {
  it('encodes object identifiers with large arcs as openssl does, and reads them back', async () => {
    // openssl prints the names of OIDs it knows, so it checks unnamed ones; known ones round-trip.
    for (const dotted of ['1.2.840.10045.4.3.2', '2.5.29.17']) assert.equal(readOid(readNode(oid(dotted))), dotted);
    for (const dotted of [WORKLOAD_IDENTITY_OID, '2.999.3', '1.3.6.1.4.1.99999.1.2']) {
      const { status, output } = await openssl((f) => ['asn1parse', '-inform', 'DER', '-in', f['der'] ?? ''], { der: oid(dotted) });
      assert.equal(status, 0, output);
      assert.match(output, new RegExp(`prim: OBJECT +:${dotted.replace(/\./g, '\\.')}\n$`), dotted);
      assert.equal(readOid(readNode(oid(dotted))), dotted);
    }
  });

  it('encodes positive integers minimally, with a leading zero byte when the top bit is set', () => {
    assert.equal(unsignedInteger(Buffer.from([0, 0, 0x7f])).toString('hex'), '02017f');
    assert.equal(unsignedInteger(Buffer.from([0x80])).toString('hex'), '02020080');
    assert.equal(unsignedInteger(Buffer.from([0])).toString('hex'), '020100');
  });

  it('writes lengths in long form from 128 bytes', () => {
    assert.equal(tlv(0x04, Buffer.alloc(127)).subarray(0, 2).toString('hex'), '047f');
    assert.equal(tlv(0x04, Buffer.alloc(200)).subarray(0, 3).toString('hex'), '0481c8');
    assert.equal(tlv(0x04, Buffer.alloc(300)).subarray(0, 4).toString('hex'), '0482012c');
  });

  it('writes UTCTime through 2049 and GeneralizedTime from 2050, and reads both back', () => {
    const before = new Date('2049-12-31T23:59:59Z');
    const after = new Date('2050-01-01T00:00:00Z');
    assert.equal(time(before).toString('latin1'), '\x17\x0d491231235959Z');
    assert.equal(time(after).toString('latin1'), '\x18\x0f20500101000000Z');
    assert.deepEqual(readTime(readNode(time(before))), before);
    assert.deepEqual(readTime(readNode(time(after))), after);
    assert.throws(() => certificateParts(Buffer.from('3000', 'hex')), /TBSCertificate/);
  });
});
