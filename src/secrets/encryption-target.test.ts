import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { DocumentError, encryptionTargetFrom } from './encryption-target.js';
import { cacheTimeoutSeconds } from './cache-timeout.js';

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' });
const jwk = createPublicKey(rsa).export({ format: 'jwk' });
const KEY = { data: { tenant: 'acme', key_version: 3, algorithm: 'RSA-OAEP-256', public_key_jwk: { ...jwk, alg: 'RSA-OAEP-256', use: 'enc' }, public_key_pem: rsa } };
const POLICY = { data: { name: 'p', namespace: 'shared', tenant: 'acme', policy_id: '42', policy_info: { algo: 'FIRST_MATCH', rules: [] } } };

function refuses(key: unknown, policy: unknown, message: RegExp): void {
  assert.throws(() => encryptionTargetFrom(key, policy), (e: unknown) => e instanceof DocumentError && message.test(e.message));
}

describe('encryptionTargetFrom', () => {
  it('reads the API\'s documents whole or their data member, from the JWK or else the PEM', () => {
    const whole = encryptionTargetFrom(KEY, POLICY);
    assert.deepEqual({ ...whole, publicKey: undefined }, { tenant: 'acme', keyVersion: 3, publicKey: undefined, policy: { id: '42', namespace: 'shared', name: 'p' } });
    const { public_key_jwk: _jwk, ...pemOnly } = KEY.data;
    const bare = encryptionTargetFrom(pemOnly, POLICY.data);
    assert.equal(bare.keyVersion, 3);
  });

  it('refuses documents of different tenants, other algorithms and missing fields', () => {
    refuses(KEY, { data: { ...POLICY.data, tenant: 'beta' } }, /tenant acme's but the policy is tenant beta's/);
    refuses({ data: { ...KEY.data, algorithm: 'RSA1_5' } }, POLICY, /not RSA-OAEP-256/);
    refuses({ data: { ...KEY.data, key_version: '3' } }, POLICY, /key_version/);
    refuses({ data: { tenant: 'acme', key_version: 1 } }, POLICY, /neither public_key_jwk nor public_key_pem/);
    refuses(KEY, { data: { ...POLICY.data, policy_id: 'x' } }, /policy_id "x"/);
    refuses('[]', POLICY, /not a JSON object/);
  });
});

describe('cacheTimeoutSeconds', () => {
  it('reads s, m and h; absent means 0 (do not cache)', () => {
    assert.deepEqual(['30s', '15m', '6h', undefined].map(cacheTimeoutSeconds), [30, 900, 21600, 0]);
  });
});
