import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { describe, it } from 'node:test';
import { verifyCsr } from '../identity/csr-verification.js';
import { openssl } from '../identity/testing/openssl.js';
import { createIdentityRequest, KEY_ALGORITHMS } from './identity-request.js';

describe('createIdentityRequest', () => {
  for (const algorithm of KEY_ALGORITHMS) {
    it(`identity requests with ${algorithm} keys are PKCS#10 that openssl and the identity service verify, for the private keys kept`, async () => {
      const request = await createIdentityRequest(algorithm);
      for (const [csr, key, spki] of [
        [request.csrs.serverCsr, request.serverKey, request.serverPublicKey],
        [request.csrs.clientCsr, request.clientKey, request.clientPublicKey],
      ] as const) {
        const checked = await openssl((f) => ['req', '-verify', '-noout', '-subject', '-in', f['csr'] ?? ''], { csr });
        assert.equal(checked.status, 0, checked.output);
        assert.match(checked.output, /verify OK/i);
        assert.match(checked.output, /subject=CN ?= ?edgeplane-sidecar/);
        const verified = await verifyCsr(csr, 'serverCsr');
        assert.equal(verified.keyType, algorithm === 'ECDSA_P256' ? 'ec' : 'rsa');
        const publicOfKey = createPublicKey(createPrivateKey(key)).export({ type: 'spki', format: 'der' });
        assert.deepEqual(verified.subjectPublicKeyInfo, publicOfKey, 'the CSR carries the public half of the key kept');
        assert.deepEqual(Buffer.from(spki), publicOfKey);
        assert.match(key, /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
      }
      assert.notEqual(request.serverKey, request.clientKey, 'two key pairs');
      const rsa = createPrivateKey(request.serverKey).asymmetricKeyDetails;
      if (algorithm === 'RSA_2048') assert.equal(rsa?.modulusLength, 2048);
      else assert.equal(rsa?.namedCurve, 'prime256v1');
    });
  }
});
