import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createPrivateCa, type PrivateCa } from '../testing/private-ca.js';
import { startVaultTestServer, type VaultTestServer } from '../testing/vault/vault-test-server.js';
import { VaultClient, type VaultReadRequest } from './vault-client.js';
import type { VaultConnection, VaultCredentials } from './vault-connection.js';
import { VaultError, type VaultErrorCode } from './vault-error.js';

describe('VaultClient against the Vault test server', () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = (): number => now;
  let http: VaultTestServer;
  let https: VaultTestServer;
  let ca: PrivateCa;
  const clients: VaultClient[] = [];
  const secrets: string[] = [];

  const client = (credentials: VaultCredentials, over: Partial<VaultConnection> = {}): VaultClient => {
    const made = new VaultClient({ provider: 'vault-test', endpoint: http.endpoint, scheme: 'HTTP', credentials, ...over }, { now: clock, timeoutMs: 2000 });
    clients.push(made);
    return made;
  };
  const root = (): VaultCredentials => ({ type: 'token', token: http.rootToken });
  const text = async (c: VaultClient, request: VaultReadRequest): Promise<string> => (await c.read(request)).value.toString('utf8');
  async function fails(promise: Promise<unknown>, code: VaultErrorCode, message?: RegExp): Promise<void> {
    await assert.rejects(promise, (error: unknown) => {
      assert.ok(error instanceof VaultError, String(error));
      assert.equal(error.code, code, error.message);
      if (message !== undefined) assert.match(error.message, message);
      for (const secret of secrets) assert.ok(!error.message.includes(secret), 'a credential is in the message');
      return true;
    });
  }

  before(async () => {
    ca = await createPrivateCa('Vault test CA');
    const serving = await ca.issue({ commonName: 'vault.test', names: ['vault.test', 'localhost'], usage: 'server' });
    http = await startVaultTestServer({ now: clock });
    https = await startVaultTestServer({ now: clock, tls: { certificate: serving.certificate + ca.certificate, key: serving.key } });
    http.writeKv2('secret', 'app', { user: 'admin', password: 's3cret-v1' });
    http.writeKv2('secret', 'app', { user: 'admin', password: 's3cret-v2', port: 5432 });
    http.writeKv1('kv', 'legacy', { api_key: 'k-123' });
    https.writeKv2('secret', 'tls', { cert: 'ok' });
    secrets.push(http.rootToken, https.rootToken);
  });
  after(async () => {
    for (const c of clients) c.close();
    await http?.close();
    await https?.close();
  });

  it('KV v2: the latest version whole (JSON) or one key; a given version; missing versions, keys and paths are 404s', async () => {
    const c = client(root());
    const latest = await c.read({ location: 'v1/secret/data/app' });
    assert.deepEqual([JSON.parse(latest.value.toString()), latest.kvVersion, latest.version], [{ user: 'admin', password: 's3cret-v2', port: 5432 }, 2, 2]);
    assert.equal(await text(c, { location: '/v1/secret/data/app', key: 'password' }), 's3cret-v2');
    assert.equal(await text(c, { location: 'secret/data/app', key: 'port' }), '5432');
    assert.equal(await text(c, { location: 'v1/secret/data/app', key: 'password', version: '1' }), 's3cret-v1');
    await fails(c.read({ location: 'v1/secret/data/app', version: 7 }), 'VersionNotFound', /version 7 of v1\/secret\/data\/app does not exist/);
    await fails(c.read({ location: 'v1/secret/data/app', version: '1', key: 'port' }), 'KeyNotFound', /key "port" does not exist in v1\/secret\/data\/app \(version 1\)/);
    await fails(c.read({ location: 'v1/secret/data/nothing' }), 'SecretNotFound', /v1\/secret\/data\/nothing does not exist/);
    await fails(c.read({ location: 'v1/secret/data/app', version: 'latest' }), 'InvalidRequest');
    await fails(c.read({ location: '../etc' }), 'InvalidRequest');
  });

  it('KV v2: a deleted latest version is 404 VersionNotFound, an older version still reads', async () => {
    http.writeKv2('secret', 'rotating', { v: 'one' });
    http.writeKv2('secret', 'rotating', { v: 'two' });
    const res = await fetch(`${http.url}/v1/secret/data/rotating`, { method: 'DELETE', headers: { 'x-vault-token': http.rootToken } });
    assert.equal(res.status, 204);
    const c = client(root());
    await fails(c.read({ location: 'v1/secret/data/rotating' }), 'VersionNotFound', /the latest version of v1\/secret\/data\/rotating was deleted/);
    assert.equal(await text(c, { location: 'v1/secret/data/rotating', version: 1, key: 'v' }), 'one');
  });

  it('KV v1: whole or one key; a version is refused (KV v1 has none)', async () => {
    const c = client(root());
    const whole = await c.read({ location: 'v1/kv/legacy' });
    assert.deepEqual([whole.value.toString(), whole.kvVersion], ['{"api_key":"k-123"}', 1]);
    assert.equal(await text(c, { location: 'kv/legacy', key: 'api_key' }), 'k-123');
    await fails(c.read({ location: 'v1/kv/legacy', version: 2 }), 'InvalidRequest', /KV v1 secret, which has no versions/);
    await fails(c.read({ location: 'v1/kv/absent' }), 'SecretNotFound');
  });

  it('token auth: a wrong token or one whose policy does not cover the path is 403', async () => {
    secrets.push('hvs.wrong-token');
    await fails(client({ type: 'token', token: 'hvs.wrong-token' }).read({ location: 'v1/secret/data/app' }), 'PermissionDenied', /permission denied/);
    const narrow = http.createToken({ paths: ['kv/*'] });
    secrets.push(narrow);
    assert.equal(await text(client({ type: 'token', token: narrow }), { location: 'v1/kv/legacy', key: 'api_key' }), 'k-123');
    await fails(client({ type: 'token', token: narrow }).read({ location: 'v1/secret/data/app' }), 'PermissionDenied');
  });

  it('AppRole: logs in once, renews the token after two thirds of its lease, logs in again after it expired or was revoked', async () => {
    const role = http.createAppRole('sidecar', { tokenTtlSeconds: 60, tokenMaxTtlSeconds: 150 });
    secrets.push(role.secretId);
    const c = client({ type: 'app_role', roleId: role.roleId, secretId: role.secretId });
    const count = (path: string): number => http.requests.filter((r) => r.path === path).length;
    const logins = count('/v1/auth/approle/login');
    const renewals = count('/v1/auth/token/renew-self');
    const read = (): Promise<string> => text(c, { location: 'v1/secret/data/app', key: 'user' });
    assert.equal(await read(), 'admin');
    assert.equal(await read(), 'admin');
    assert.equal(count('/v1/auth/approle/login'), logins + 1, 'one login for both reads');
    now += 41_000; // past 2/3 of 60 s
    assert.equal(await read(), 'admin');
    assert.equal(count('/v1/auth/token/renew-self'), renewals + 1);
    assert.equal(count('/v1/auth/approle/login'), logins + 1, 'renewed, not logged in again');
    now += 61_000; // the renewed lease ran out
    assert.equal(await read(), 'admin');
    assert.equal(count('/v1/auth/approle/login'), logins + 2);
    for (const token of [...http.auth.tokens.keys()]) if (token !== http.rootToken) http.auth.revoke(token);
    assert.equal(await read(), 'admin', 'a revoked token is replaced by a new login');
    assert.equal(count('/v1/auth/approle/login'), logins + 3);
  });

  it('AppRole: wrong credentials are LoginRefused (403) with Vault\'s reason, never the secret_id', async () => {
    const role = http.createAppRole('other');
    secrets.push('not-the-secret-id');
    await fails(client({ type: 'app_role', roleId: role.roleId, secretId: 'not-the-secret-id' }).read({ location: 'v1/kv/legacy' }), 'LoginRefused', /refused the AppRole login \(400\): invalid role or secret ID/);
  });

  it('TLS with a private CA: trusted CA, SNI checked against the certificate, skip verification; failures are TlsFailure (502)', async () => {
    const tls = (over: VaultConnection['tls']): VaultClient => client({ type: 'token', token: https.rootToken }, { endpoint: https.endpoint, scheme: 'HTTPS', tls: over });
    assert.equal(await text(tls({ trustedCaPem: ca.certificate, sni: 'vault.test' }), { location: 'v1/secret/data/tls', key: 'cert' }), 'ok');
    assert.equal(await text(tls({ trustedCaPem: ca.certificate, sni: 'localhost' }), { location: 'v1/secret/data/tls', key: 'cert' }), 'ok');
    assert.equal(await text(tls({ skipVerification: true }), { location: 'v1/secret/data/tls', key: 'cert' }), 'ok');
    await fails(tls({ trustedCaPem: ca.certificate, sni: 'other.test' }).read({ location: 'v1/secret/data/tls' }), 'TlsFailure', /ERR_TLS_CERT_ALTNAME_INVALID/);
    await fails(tls({ trustedCaPem: ca.certificate }).read({ location: 'v1/secret/data/tls' }), 'TlsFailure', /127\.0\.0\.1/);
    await fails(tls({ sni: 'vault.test' }).read({ location: 'v1/secret/data/tls' }), 'TlsFailure', /certificate/i);
  });

  it('an endpoint nobody listens on is Unreachable (503); a sealed Vault is VaultUnavailable (503)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await fails(client(root(), { endpoint: `127.0.0.1:${port}` }).read({ location: 'v1/kv/legacy' }), 'Unreachable', new RegExp(`http://127\\.0\\.0\\.1:${port} is unreachable`));
    http.setSealed(true);
    try {
      await fails(client(root()).read({ location: 'v1/kv/legacy' }), 'VaultUnavailable', /Vault is sealed/);
    } finally {
      http.setSealed(false);
    }
  });
});
