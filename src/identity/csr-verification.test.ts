import assert from 'node:assert/strict';
import { createPublicKey, ECDH } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyCsr } from './csr-verification.js';
import { bitString, oid, sequence } from '../common/der/der-writer.js';
import { pemEncode } from '../common/der/pem.js';
import { IdentityError } from './identity-error.js';
import { makeTestCsr, type TestKeyType } from './testing/test-csr.js';

const rejects = (pem: string, code: IdentityError['code'], message: RegExp): Promise<void> =>
  assert.rejects(verifyCsr(pem, 'serverCsr'), (error: unknown) => error instanceof IdentityError && error.code === code && message.test(error.message));

describe('verifyCsr', () => {
  it('accepts EC P-256, EC P-384, RSA-2048 and RSA-4096 requests and returns their public key', async () => {
    const keys: Array<[TestKeyType, 'ec' | 'rsa']> = [
      [{ type: 'ec', curve: 'P-256' }, 'ec'],
      [{ type: 'ec', curve: 'P-384' }, 'ec'],
      [{ type: 'rsa', bits: 2048 }, 'rsa'],
      [{ type: 'rsa', bits: 4096 }, 'rsa'],
    ];
    for (const [key, keyType] of keys) {
      const csr = makeTestCsr(key);
      const verified = await verifyCsr(csr.pem, 'serverCsr');
      assert.equal(verified.keyType, keyType);
      assert.deepEqual(verified.subjectPublicKeyInfo, createPublicKey(csr.privateKey).export({ type: 'spki', format: 'der' }));
    }
  });

  it('refuses a request whose signature does not verify (no proof of possession)', async () => {
    await rejects(makeTestCsr({ type: 'ec', curve: 'P-256' }, { tamper: true }).pem, 'InvalidCsr', /^serverCsr: the signature does not verify/);
    await rejects(makeTestCsr({ type: 'rsa', bits: 2048 }, { tamper: true }).pem, 'InvalidCsr', /does not verify/);
  });

  it('refuses a request signed with another key than the one it carries', async () => {
    const other = makeTestCsr().privateKey;
    await assert.rejects(verifyCsr(makeTestCsr(undefined, { signWith: other }).pem, 'clientCsr'), (error: unknown) => error instanceof IdentityError && error.code === 'InvalidCsr' && /^clientCsr: the signature does not verify/.test(error.message));
  });

  it('refuses P-521, secp256k1, small RSA and Ed25519 keys naming what is accepted', async () => {
    await rejects(makeTestCsr({ type: 'ec', curve: 'P-521' }).pem, 'UnsupportedKey', /^serverCsr: EC curve P-521 is not accepted; use EC P-256, EC P-384 or RSA of 2048 to 8192 bits$/);
    await rejects(makeTestCsr({ type: 'ec', curve: 'secp256k1' }).pem, 'UnsupportedKey', /EC curve secp256k1 is not accepted/);
    await rejects(makeTestCsr({ type: 'rsa', bits: 1024 }).pem, 'UnsupportedKey', /an RSA key of 1024 bits is not accepted/);
    await rejects(makeTestCsr({ type: 'ed25519' }).pem, 'UnsupportedKey', /an Ed25519 key is not accepted/);
  });

  it('reads compressed EC points, and refuses a point that is not on the curve', async () => {
    const compressed = (spki: Buffer): Buffer => {
      const point = spki.subarray(spki.length - 65);
      const short = ECDH.convertKey(point, 'prime256v1', undefined, undefined, 'compressed') as Buffer;
      return sequence(sequence(oid('1.2.840.10045.2.1'), oid('1.2.840.10045.3.1.7')), bitString(short));
    };
    const csr = makeTestCsr(undefined, { editKey: compressed });
    const verified = await verifyCsr(csr.pem, 'serverCsr');
    assert.equal(verified.subjectPublicKeyInfo.length, 59, 'the request\'s own (compressed) encoding is kept');
    assert.ok(verified.subjectPublicKeyInfo.equals(createPublicKey(csr.privateKey).export({ type: 'spki', format: 'der' })) === false);
    const offCurve = (spki: Buffer): Buffer => {
      const copy = Buffer.from(spki);
      copy[copy.length - 1] = (copy[copy.length - 1] ?? 0) ^ 0x01;
      return copy;
    };
    await rejects(makeTestCsr(undefined, { editKey: offCurve }).pem, 'UnsupportedKey', /^serverCsr: the public key is not a valid P-256 point$/);
    await rejects(makeTestCsr(undefined, { editKey: (spki) => spki.subarray(0, spki.length - 1) }).pem, 'InvalidCsr', /not a PKCS#10 certificate request/);
  });

  it('refuses text that is not one PEM certificate request', async () => {
    await rejects('hello', 'InvalidCsr', /expected one PEM "CERTIFICATE REQUEST" block, found 0/);
    await rejects(makeTestCsr().pem + makeTestCsr().pem, 'InvalidCsr', /found 2/);
    await rejects(pemEncode(Buffer.from('3003020100', 'hex'), 'CERTIFICATE REQUEST'), 'InvalidCsr', /not a PKCS#10 certificate request/);
    await rejects(pemEncode(Buffer.from([0x30, 0x82, 0x10]), 'CERTIFICATE REQUEST'), 'InvalidCsr', /not a PKCS#10 certificate request/);
  });
});
