import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { EnvelopeEncryption } from '../common/envelope-encryption.js';
import type { StoredObject } from './envelope.js';
import { NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import { openSecretFields, reencryptSecretFields, sealSecretFields } from './secret-fields.js';

const access = NAMESPACED_KINDS.get('secret_management_access') as ConfigKind;
const KEY = '/config/acme/secret_management_access/default/vault';
const clear = `string:///${Buffer.from('marker-vault-token').toString('base64')}`;
const spec = {
  provider_name: 'vault',
  access_info: { server_endpoint: 'vault.example:8200', scheme: 'HTTPS' },
  vault_auth_info: { token: { clear_secret_info: { url: clear }, blindfold_secret_info: null }, app_role_auth: null },
};
const object = (s: Record<string, unknown>): StoredObject => ({ metadata: { name: 'vault' }, system_metadata: {}, spec: s, status: [] }) as unknown as StoredObject;

describe('config secret fields at rest', () => {
  const old = { id: 'o1d', key: randomBytes(32) };
  const current = { id: 'n3w', key: randomBytes(32) };
  const encryption = new EnvelopeEncryption({ current, previous: [old] });

  it('are the Vault token and AppRole secret_id of secret_management_access (clear and blindfolded); no other kind has any', () => {
    assert.deepEqual(access.secretFields, [
      ['vault_auth_info', 'token', 'clear_secret_info', 'url'],
      ['vault_auth_info', 'token', 'blindfold_secret_info', 'location'],
      ['vault_auth_info', 'app_role_auth', 'secret_id', 'clear_secret_info', 'url'],
      ['vault_auth_info', 'app_role_auth', 'secret_id', 'blindfold_secret_info', 'location'],
    ]);
    assert.deepEqual([...NAMESPACED_KINDS.values()].filter((k) => k.secretFields !== undefined).map((k) => k.kind), ['secret_management_access']);
  });

  it('are encrypted in the stored spec, everything else left as it was and the input untouched, and decrypt back', () => {
    const input = structuredClone(spec);
    const sealed = sealSecretFields(access, KEY, input, encryption);
    assert.deepEqual(input, spec);
    const stored = JSON.stringify(sealed);
    assert.ok(!stored.includes('marker-vault-token') && !stored.includes(clear.slice('string:///'.length)), stored);
    assert.match(stored, /"url":"k8s:enc:aesgcm:v1:n3w:/);
    assert.equal(JSON.stringify((sealed as typeof spec).access_info), JSON.stringify(spec.access_info));
    assert.deepEqual(openSecretFields(access, KEY, object(sealed), encryption).spec, spec);
    // Bound to the object's key and the field's path.
    assert.throws(() => openSecretFields(access, `${KEY}2`, object(sealed), encryption), /#spec\.vault_auth_info\.token\.clear_secret_info\.url does not decrypt/);
  });

  it('read legacy plaintext as it is; re-encryption moves legacy and previous-key fields under the current key, and skips current ones', () => {
    assert.deepEqual(openSecretFields(access, KEY, object(spec), encryption).spec, spec);
    const underOld = sealSecretFields(access, KEY, spec, new EnvelopeEncryption({ current: old }));
    for (const stale of [spec, underOld]) {
      const next = reencryptSecretFields(access, KEY, object(stale), encryption) ?? assert.fail('not re-encrypted');
      assert.match(JSON.stringify(next.spec), /"url":"k8s:enc:aesgcm:v1:n3w:/);
      assert.deepEqual(openSecretFields(access, KEY, next, encryption).spec, spec);
      assert.equal(reencryptSecretFields(access, KEY, next, encryption), undefined);
    }
  });

  it('are left alone without encryption, and kinds without secret fields are never touched', () => {
    assert.equal(sealSecretFields(access, KEY, spec, undefined), spec);
    const site = NAMESPACED_KINDS.get('virtual_site') as ConfigKind;
    const siteObject = object({ site_type: 'REGIONAL_EDGE' });
    assert.equal(openSecretFields(site, KEY, siteObject, encryption), siteObject);
  });
});
