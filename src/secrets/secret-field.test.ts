import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { VersionedObject } from '../config/envelope.js';
import { builtinPolicySpec } from '../config/builtin-secret-policy.js';
import { evaluatePolicy, type SecretPolicySpec } from './policy-evaluation.js';
import { policyCallerOf } from './client-name.js';
import { SecretError } from './secret-error.js';
import { resolveSecretField } from './secret-field.js';
import { blindfoldFixture } from './testing/blindfold-fixture.js';
import { testPodIdentity } from './testing/pod-identities.js';

describe('resolveSecretField', () => {
  const f = blindfoldFixture();
  let policy: VersionedObject;
  before(async () => {
    policy = await f.createPolicy('acme', 'shared', 'web', { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 'web' }, spec: { action: 'ALLOW', client_selector: { expressions: ['app=web'] } } }], decrypt_cache_timeout: '30s' });
  });

  it('unseals a blindfold field for a pod its policy allows, with the policy\'s cache timeout', async () => {
    const field = { blindfold_secret_info: { location: await f.encrypt(Buffer.from('vault-token'), policy) } };
    assert.deepEqual(await resolveSecretField(field, testPodIdentity(), f.unsealer, 'token'), { value: Buffer.from('vault-token'), cacheTimeoutSeconds: 30 });
    await assert.rejects(resolveSecretField(field, testPodIdentity({ labels: { app: 'db' } }), f.unsealer, 'token'), (e: unknown) => e instanceof SecretError && e.code === 'PolicyDenied');
  });

  it('decodes a clear field; refuses an empty field, providers and malformed URLs, naming the field only', async () => {
    const clear = { clear_secret_info: { url: `string:///${Buffer.from('plain').toString('base64')}` } };
    assert.deepEqual(await resolveSecretField(clear, testPodIdentity(), f.unsealer, 'x'), { value: Buffer.from('plain'), cacheTimeoutSeconds: 0 });
    const refused = async (field: unknown, message: RegExp): Promise<void> =>
      assert.rejects(resolveSecretField(field, testPodIdentity(), f.unsealer, 'vault_auth_info.token'), (e: unknown) => e instanceof SecretError && e.code === 'InvalidArgument' && message.test(e.message));
    await refused(null, /^vault_auth_info.token: neither blindfold_secret_info nor clear_secret_info is set$/);
    await refused({ clear_secret_info: { url: 'string:///***' } }, /is not string:\/\/\/<base64>/);
    await refused({ clear_secret_info: { url: clear.clear_secret_info.url, provider: 'vault' } }, /from a provider are not supported/);
    await refused({ blindfold_secret_info: { location: 'string:///x', store_provider: 'vault' } }, /kept in a store provider are not supported/);
  });
});

describe('builtinPolicySpec', () => {
  it('allows every workload of its tenant, whatever its namespace or service account, and no client name of another tenant', () => {
    const spec = builtinPolicySpec('acme') as unknown as SecretPolicySpec;
    assert.equal(evaluatePolicy(spec, policyCallerOf(testPodIdentity({ namespace: 'prod', serviceAccount: 'x', labels: {} }))).allowed, true);
    assert.equal(evaluatePolicy(spec, policyCallerOf(testPodIdentity({ tenant: 'acme-other' }))).allowed, false);
    assert.equal(evaluatePolicy(spec, policyCallerOf(testPodIdentity({ tenant: 'beta' }))).allowed, false);
  });
});
