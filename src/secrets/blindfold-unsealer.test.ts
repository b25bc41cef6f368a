import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompactEncrypt } from 'jose';
import { createPublicKey } from 'node:crypto';
import type { VersionedObject } from '../config/envelope.js';
import { BLINDFOLD_TYP, LOCATION_PREFIX, wrapLocation } from './blindfold-format.js';
import { SecretError, type SecretErrorCode, UNSEAL_MESSAGES } from './secret-error.js';
import { blindfoldFixture } from './testing/blindfold-fixture.js';
import { testPodIdentity } from './testing/pod-identities.js';

const PLAINTEXT = 'db-password: correct horse battery staple';
const web = testPodIdentity();
const worker = testPodIdentity({ serviceAccount: 'worker', labels: { app: 'worker' } });
const betaWeb = testPodIdentity({ tenant: 'beta' });

describe('BlindfoldUnsealer', () => {
  const f = blindfoldFixture();
  let webOnly: VersionedObject;
  let location: string;

  async function fails(promise: Promise<unknown>, code: SecretErrorCode): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof SecretError, String(error));
      assert.equal(error.code, code);
      if (code in UNSEAL_MESSAGES) assert.equal(error.message, UNSEAL_MESSAGES[code as keyof typeof UNSEAL_MESSAGES]);
      return true;
    });
  }

  before(async () => {
    webOnly = await f.createPolicy('acme', 'shared', 'web-only', {
      algo: 'FIRST_MATCH',
      rules: [{ metadata: { name: 'web' }, spec: { action: 'ALLOW', client_selector: { expressions: ['app=web'] } } }],
      decrypt_cache_timeout: '6h',
    });
    await f.createPolicy('beta', 'shared', 'web-only', { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 'all' }, spec: { action: 'ALLOW' } }] });
    await f.keys.current('beta');
    location = await f.encrypt(Buffer.from(PLAINTEXT), webOnly);
  });

  after(() => {
    // Nothing secret was ever logged: not the plaintext (raw or base64), not a private key.
    const logs = f.logs();
    assert.ok(logs.includes('secret unsealed') && logs.includes('unseal denied'), 'the outcomes were logged');
    for (const secret of [PLAINTEXT, Buffer.from(PLAINTEXT).toString('base64'), 'PRIVATE KEY', location.slice(LOCATION_PREFIX.length, 60)]) {
      assert.ok(!logs.includes(secret), `the log contains ${secret}`);
    }
  });

  it('gives a pod the policy allows the plaintext and the policy\'s cache timeout', async () => {
    const result = await f.unsealer.unseal(web, location);
    assert.equal(result.plaintext.toString(), PLAINTEXT);
    assert.equal(result.decryptCacheTimeout, '6h');
    assert.equal(result.cacheTimeoutSeconds, 21600);
  });

  it('denies a pod of the same tenant the policy does not allow (403)', async () => {
    await fails(f.unsealer.unseal(worker, location), 'PolicyDenied');
  });

  it('denies a pod of another tenant (403), even when that tenant has a policy of the same name', async () => {
    await fails(f.unsealer.unseal(betaWeb, location), 'PolicyDenied');
  });

  it('is 400 for every single flipped byte of the blob and of its base64 text', async () => {
    const text = location.slice(LOCATION_PREFIX.length);
    const jwe = Buffer.from(text, 'base64');
    const outcomes = new Map<string, number>();
    const attempt = async (candidate: string): Promise<void> => {
      const code = await f.unsealer.unseal(web, candidate).then(
        () => 'Unsealed',
        (error: unknown) => (error instanceof SecretError ? error.code : 'other'),
      );
      outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
    };
    for (let i = 0; i < jwe.length; i++) {
      const flipped = Buffer.from(jwe);
      flipped[i] = (flipped[i] as number) ^ 0x01;
      await attempt(LOCATION_PREFIX + flipped.toString('base64'));
    }
    for (let i = 0; i < text.length; i++) await attempt(LOCATION_PREFIX + text.slice(0, i) + String.fromCharCode(text.charCodeAt(i) ^ 0x01) + text.slice(i + 1));
    assert.deepEqual([...outcomes.keys()].sort(), ['NotBlindfold', 'Tampered'], JSON.stringify([...outcomes]));
    assert.equal([...outcomes.values()].reduce((a, b) => a + b), jwe.length + text.length);
  });

  it('is 404 once the policy is deleted, and stays 404 when one of the same name is created again (a new policy id)', async () => {
    const temporary = await f.createPolicy('acme', 'default', 'temporary', { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 'all' }, spec: { action: 'ALLOW' } }] });
    const blob = await f.encrypt(Buffer.from('short-lived'), temporary);
    assert.equal((await f.unsealer.unseal(web, blob)).plaintext.toString(), 'short-lived');
    await f.deletePolicy('acme', 'default', 'temporary');
    await fails(f.unsealer.unseal(web, blob), 'PolicyOrKeyNotFound');
    await f.createPolicy('acme', 'default', 'temporary', { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 'all' }, spec: { action: 'ALLOW' } }] });
    await fails(f.unsealer.unseal(web, blob), 'PolicyOrKeyNotFound');
  });

  it('is 404 for a tenant that has no key at all', async () => {
    const gamma = await f.createPolicy('gamma', 'shared', 'p', { algo: 'FIRST_MATCH', rules: [] });
    const header = JSON.parse(Buffer.from((Buffer.from(location.slice(LOCATION_PREFIX.length), 'base64').toString().split('.')[0] ?? ''), 'base64url').toString()) as { alg: string; enc: string; tenant: string };
    assert.equal(header.tenant, 'acme');
    // A blob naming gamma, made with acme's key (gamma never had one).
    const key = createPublicKey((await f.keys.current('acme')).public_key_pem);
    const jwe = await new CompactEncrypt(Buffer.from('x'))
      .setProtectedHeader({ ...header, tenant: 'gamma', policy_namespace: 'shared', policy_name: 'p', policy_id: gamma.status[0]?.['policy_id'] })
      .encrypt(key);
    await fails(f.unsealer.unseal(testPodIdentity({ tenant: 'gamma' }), wrapLocation(jwe)), 'PolicyOrKeyNotFound');
  });

  it('is 404 for a blob of ours made with another registered JWE algorithm', async () => {
    const key = createPublicKey((await f.keys.current('acme')).public_key_pem);
    const jwe = await new CompactEncrypt(Buffer.from(PLAINTEXT))
      .setProtectedHeader({ alg: 'RSA-OAEP-256', enc: 'A128GCM', typ: BLINDFOLD_TYP, tenant: 'acme', key_version: 1, policy_id: webOnly.status[0]?.['policy_id'], policy_namespace: 'shared', policy_name: 'web-only' })
      .encrypt(key);
    await fails(f.unsealer.unseal(web, wrapLocation(jwe)), 'UnknownAlgorithm');
  });

  it('keeps old key versions decryptable after rotations; new blobs use the newest version', async () => {
    const before = (await f.keys.current('acme')).version;
    const rotated = await f.keys.rotate('acme');
    assert.equal(rotated.version, before + 1);
    assert.equal((await f.keys.rotate('acme')).version, before + 2);
    assert.equal((await f.keys.current('acme')).version, before + 2);
    const fresh = await f.encrypt(Buffer.from('new'), webOnly);
    assert.equal((await f.unsealer.unseal(web, fresh)).plaintext.toString(), 'new');
    assert.equal((await f.unsealer.unseal(web, location)).plaintext.toString(), PLAINTEXT);
    const middle = await f.encrypt(Buffer.from('middle'), webOnly, before + 1);
    assert.equal((await f.unsealer.unseal(web, middle)).plaintext.toString(), 'middle');
  });
});
