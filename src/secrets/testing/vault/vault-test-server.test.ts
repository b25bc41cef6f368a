import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startVaultTestServer, type VaultTestServer } from './vault-test-server.js';

describe('Vault test server (shapes from Vault\'s API documentation)', () => {
  let vault: VaultTestServer;
  const call = async (method: string, path: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: Record<string, unknown> | undefined }> => {
    const res = await fetch(`${vault.url}${path}`, {
      method,
      headers: { ...(options.token === undefined ? {} : { 'x-vault-token': options.token }), 'content-type': 'application/json' },
      ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
  };
  before(async () => {
    vault = await startVaultTestServer();
  });
  after(() => vault.close());

  it('KV v2: writes answer the version\'s metadata; reads answer data and metadata; ?version= reads an older one; metadata lists versions', async () => {
    const token = vault.rootToken;
    const write = await call('POST', '/v1/secret/data/app', { token, body: { data: { user: 'a' } } });
    assert.equal(write.status, 200);
    assert.deepEqual(Object.keys(write.body?.['data'] as object).sort(), ['created_time', 'custom_metadata', 'deletion_time', 'destroyed', 'version']);
    await call('POST', '/v1/secret/data/app', { token, body: { data: { user: 'b' } } });
    const latest = await call('GET', '/v1/secret/data/app', { token });
    assert.deepEqual(Object.keys(latest.body ?? {}).sort(), ['auth', 'data', 'lease_duration', 'lease_id', 'renewable', 'request_id', 'warnings', 'wrap_info']);
    const data = latest.body?.['data'] as { data: unknown; metadata: Record<string, unknown> };
    assert.deepEqual(data.data, { user: 'b' });
    assert.deepEqual([data.metadata['version'], data.metadata['deletion_time'], data.metadata['destroyed']], [2, '', false]);
    const older = (await call('GET', '/v1/secret/data/app?version=1', { token })).body?.['data'] as { data: unknown; metadata: { version: number } };
    assert.deepEqual([older.data, older.metadata.version], [{ user: 'a' }, 1]);
    assert.deepEqual(await call('GET', '/v1/secret/data/app?version=3', { token }), { status: 404, body: { errors: [] } });
    const metadata = (await call('GET', '/v1/secret/metadata/app', { token })).body?.['data'] as Record<string, unknown>;
    assert.equal(metadata['current_version'], 2);
    assert.deepEqual(Object.keys(metadata['versions'] as object), ['1', '2']);
    assert.equal((await call('DELETE', '/v1/secret/data/app', { token })).status, 204);
    const deleted = await call('GET', '/v1/secret/data/app', { token });
    assert.equal(deleted.status, 404);
    assert.equal((deleted.body?.['data'] as { data: unknown }).data, null);
  });

  it('KV v1: write 204, read with the advisory lease, delete', async () => {
    const token = vault.rootToken;
    assert.equal((await call('POST', '/v1/kv/app', { token, body: { password: 'p' } })).status, 204);
    const read = await call('GET', '/v1/kv/app', { token });
    assert.deepEqual([read.status, read.body?.['data'], read.body?.['lease_duration']], [200, { password: 'p' }, 2764800]);
    assert.equal((await call('DELETE', '/v1/kv/app', { token })).status, 204);
    assert.deepEqual(await call('GET', '/v1/kv/app', { token }), { status: 404, body: { errors: [] } });
  });

  it('AppRole login answers auth.client_token, lease_duration and renewable; renew-self extends the lease', async () => {
    const role = vault.createAppRole('sidecar', { tokenTtlSeconds: 60 });
    const login = await call('POST', '/v1/auth/approle/login', { body: { role_id: role.roleId, secret_id: role.secretId } });
    const auth = login.body?.['auth'] as Record<string, unknown>;
    assert.deepEqual([login.status, auth['lease_duration'], auth['renewable'], login.body?.['data']], [200, 60, true, null]);
    assert.match(auth['client_token'] as string, /^hvs\./);
    const renewed = await call('POST', '/v1/auth/token/renew-self', { token: auth['client_token'] as string, body: {} });
    assert.equal((renewed.body?.['auth'] as Record<string, unknown>)['lease_duration'], 60);
    assert.deepEqual(await call('POST', '/v1/auth/approle/login', { body: { role_id: role.roleId, secret_id: 'wrong' } }), { status: 400, body: { errors: ['invalid role or secret ID'] } });
    assert.deepEqual(await call('POST', '/v1/auth/token/renew-self', { token: vault.rootToken }), { status: 400, body: { errors: ['lease is not renewable'] } });
  });

  it('answers Vault\'s errors: missing token 400, bad token or path outside its policy 403, unknown mount 404, sealed 503', async () => {
    assert.deepEqual(await call('GET', '/v1/secret/data/app'), { status: 400, body: { errors: ['missing client token'] } });
    assert.deepEqual(await call('GET', '/v1/secret/data/app', { token: 'hvs.nope' }), { status: 403, body: { errors: ['permission denied'] } });
    const narrow = vault.createToken({ paths: ['secret/data/allowed/*'] });
    assert.equal((await call('GET', '/v1/secret/data/app', { token: narrow })).status, 403);
    assert.equal((await call('GET', '/v1/secret/data/allowed/x', { token: narrow })).status, 404);
    assert.deepEqual(await call('GET', '/v1/nomount/x', { token: vault.rootToken }), { status: 404, body: { errors: ['no handler for route "nomount/x". route entry not found.'] } });
    vault.setSealed(true);
    assert.deepEqual(await call('GET', '/v1/secret/data/app', { token: vault.rootToken }), { status: 503, body: { errors: ['Vault is sealed'] } });
    vault.setSealed(false);
  });
});
