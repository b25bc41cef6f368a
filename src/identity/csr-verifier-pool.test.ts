import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { csrVerifierPool } from './csr-verifier-pool.js';
import { IdentityError } from './identity-error.js';
import { makeTestCsr } from './testing/test-csr.js';

describe('csrVerifierPool', () => {
  it('verifies requests in worker threads, in order, spreading concurrent jobs over its workers', async () => {
    const pool = csrVerifierPool(2);
    try {
      const csrs = Array.from({ length: 6 }, (_, i) => makeTestCsr(i === 5 ? { type: 'rsa', bits: 2048 } : undefined));
      const results = await Promise.all(csrs.map((csr, i) => pool.verify([{ pem: csr.pem, field: `csr${i}` }])));
      results.forEach((keys, i) => {
        assert.equal(keys.length, 1);
        assert.ok(keys[0]?.subjectPublicKeyInfo.equals(createPublicKey(csrs[i]?.privateKey ?? '').export({ type: 'spki', format: 'der' })), `csr${i}`);
      });
      assert.deepEqual(results.map((keys) => keys[0]?.keyType), ['ec', 'ec', 'ec', 'ec', 'ec', 'rsa']);
    } finally {
      await pool.close();
    }
  });

  it('answers a worker\'s IdentityError with its code and message, and refuses work once closed', async () => {
    const pool = csrVerifierPool(1);
    const good = makeTestCsr();
    await assert.rejects(
      pool.verify([
        { pem: good.pem, field: 'serverCsr' },
        { pem: makeTestCsr(undefined, { tamper: true }).pem, field: 'clientCsr' },
      ]),
      (error: unknown) => error instanceof IdentityError && error.code === 'InvalidCsr' && /^clientCsr: the signature does not verify/.test(error.message),
    );
    await assert.rejects(pool.verify([{ pem: makeTestCsr({ type: 'ed25519' }).pem, field: 'serverCsr' }]), (error: unknown) => error instanceof IdentityError && error.code === 'UnsupportedKey');
    await pool.close();
    await assert.rejects(pool.verify([{ pem: good.pem, field: 'serverCsr' }]), (error: unknown) => error instanceof IdentityError && error.code === 'Unavailable');
  });
});
