import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextTokenAction } from './vault-session.js';
import { parseVaultLocation, readSecretFrom } from './vault-secret.js';
import { VaultError } from './vault-error.js';

describe('nextTokenAction', () => {
  const lease = { token: 't', since: 0, leaseSeconds: 60, renewable: true };
  it('uses a fresh token, renews after two thirds of the lease, logs in again when it ran out or cannot be renewed', () => {
    assert.equal(nextTokenAction(undefined, 0), 'login');
    assert.equal(nextTokenAction(lease, 39_999), 'use');
    assert.equal(nextTokenAction(lease, 40_000), 'renew');
    assert.equal(nextTokenAction({ ...lease, renewable: false }, 40_000), 'login');
    assert.equal(nextTokenAction(lease, 60_000), 'login');
    assert.equal(nextTokenAction({ ...lease, leaseSeconds: 0 }, 10 ** 12), 'use', 'a token without a lease is used as given');
  });
});

describe('parseVaultLocation and readSecretFrom', () => {
  it('accepts the path with or without /v1/ and knows KV v2 data paths and their metadata path', () => {
    assert.deepEqual(parseVaultLocation('v1/secret/data/team/app'), { apiPath: '/v1/secret/data/team/app', kvV2Path: true, metadataPath: '/v1/secret/metadata/team/app' });
    assert.deepEqual(parseVaultLocation('/kv/app/'), { apiPath: '/v1/kv/app', kvV2Path: false });
    for (const bad of ['', 'secret', 'secret//x', 'secret/../x', 'secret/x?version=2', 'secret/x y']) assert.throws(() => parseVaultLocation(bad), VaultError, bad);
  });

  it('reads KV v2\'s nested data only on a data path; elsewhere the data is KV v1\'s', () => {
    const v2Body = { data: { data: { a: '1' }, metadata: { version: 3 } } };
    assert.deepEqual(readSecretFrom(v2Body, parseVaultLocation('secret/data/x'), undefined), { data: { a: '1' }, kvVersion: 2, version: 3 });
    assert.deepEqual(readSecretFrom(v2Body, parseVaultLocation('kv/x'), undefined), { data: v2Body.data, kvVersion: 1 });
  });
});
