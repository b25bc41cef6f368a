import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RequestListener } from 'node:http';
import { inject } from 'light-my-request';
import type { ResolvedProvider } from '../../secrets/resolved-provider.js';
import { SecretError } from '../../secrets/secret-error.js';
import { captureLogger } from '../../secrets/testing/capture-logger.js';
import { createPrivateCa, type PrivateCa } from '../../secrets/testing/private-ca.js';
import { startVaultTestServer, type VaultTestServer } from '../../secrets/testing/vault/vault-test-server.js';
import { fakeTimers } from '../../common/testing/fake-timers.js';
import type { IdentityMaterial } from '../identity-material.js';
import { buildSidecarApp, IDENTITY_ENDPOINTS } from '../sidecar-http-app.js';
import type { SidecarState } from '../sidecar-state.js';
import type { PlatformSecrets, UnsealedSecret } from './platform-secrets.js';
import { SecretCache } from './secret-cache.js';
import { SidecarUnsealer } from './sidecar-unsealer.js';
import { unsealEndpoint } from './unseal-endpoint.js';
import { VaultProviders } from './vault-providers.js';

const material = { clientCertificate: 'CERT', clientKey: 'KEY', chain: 'CHAIN' } as unknown as IdentityMaterial;
const READY: SidecarState = { kind: 'READY', identity: { notBefore: 0, notAfter: 1 }, issuedAt: 0, inExpiryWindow: false, failures: 0 };
const BINARY = Buffer.from([0, 159, 146, 150, 255, 10]);

/** The control plane's provider endpoint, answering what the test sets per name, and counting reads. */
class Providers implements PlatformSecrets {
  readonly answers = new Map<string, ResolvedProvider>();
  readonly reads: string[] = [];
  unseal(): Promise<UnsealedSecret> {
    return Promise.reject(new Error('not used'));
  }
  provider(name: string): Promise<ResolvedProvider> {
    this.reads.push(name);
    const answer = this.answers.get(name);
    return answer === undefined ? Promise.reject(new SecretError('ProviderNotFound', `secret_management_access ${name} does not exist in namespace default or shared`)) : Promise.resolve(answer);
  }
  close(): void {}
}

describe('POST /secret/unseal of type vault against the Vault test server (KV v1/v2, token and AppRole, TLS with a private CA)', () => {
  const timers = fakeTimers(Date.parse('2026-01-01T00:00:00Z'));
  const log = captureLogger();
  const providers = new Providers();
  const secrets: string[] = [];
  let vault: VaultTestServer;
  let tlsVault: VaultTestServer;
  let ca: PrivateCa;
  let sessions: VaultProviders;
  let app: RequestListener;

  const base = (name: string, over: Partial<ResolvedProvider> = {}): ResolvedProvider => ({
    name,
    namespace: 'default',
    provider_name: 'vault',
    server_endpoint: vault.endpoint,
    scheme: 'HTTP',
    tls: { skip_server_verification: false },
    auth: { type: 'token', token: vault.rootToken },
    cache_timeout_seconds: 0,
    ...over,
  });
  const unseal = async (body: Record<string, unknown>): Promise<{ status: number; text: string }> => {
    const res = await inject(app, { method: 'POST', url: '/secret/unseal', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ type: 'vault', ...body }) });
    return { status: res.statusCode, text: res.statusCode === 200 ? Buffer.from(res.body, 'base64').toString('utf8') : res.body };
  };
  const count = (server: VaultTestServer, path: string): number => server.requests.filter((r) => r.path === path).length;

  before(async () => {
    ca = await createPrivateCa('Vault test CA');
    const serving = await ca.issue({ commonName: 'vault.test', names: ['vault.test'], usage: 'server' });
    vault = await startVaultTestServer({ now: () => timers.now() });
    tlsVault = await startVaultTestServer({ now: () => timers.now(), tls: { certificate: serving.certificate, key: serving.key } });
    vault.writeKv2('secret', 'app', { user: 'admin', password: 'v1-password' });
    vault.writeKv2('secret', 'app', { user: 'admin', password: 'v2-password', port: 5432, blob: BINARY.toString('base64') });
    vault.writeKv1('kv', 'legacy', { api_key: 'k-legacy' });
    tlsVault.writeKv2('secret', 'tls', { password: 'over-tls' });
    secrets.push(vault.rootToken, tlsVault.rootToken, 'v1-password', 'v2-password', 'k-legacy', 'over-tls');
    sessions = new VaultProviders({ secrets: providers, now: () => timers.now(), timeoutMs: 2000 });
    const unsealer = new SidecarUnsealer({ secrets: providers, cache: new SecretCache(timers), vault: sessions });
    app = buildSidecarApp({ view: { current: () => READY, identity: () => material }, logger: log.logger, endpoints: [...IDENTITY_ENDPOINTS, unsealEndpoint(unsealer, log.logger)] });
    providers.answers.set('vault', base('vault'));
  });
  beforeEach(() => {
    providers.reads.length = 0;
  });
  after(async () => {
    sessions.close();
    await vault.close();
    await tlsVault.close();
    const logs = log.text();
    assert.match(logs, /"type":"vault"/);
    for (const secret of secrets) assert.ok(!logs.includes(secret), `the log contains a secret (${secret.slice(0, 4)}…)`);
  });

  it('vault unseal reads KV v2: the latest version whole as JSON, one key, a given version', async () => {
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/app' }), { status: 200, text: JSON.stringify({ user: 'admin', password: 'v2-password', port: 5432, blob: BINARY.toString('base64') }) });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/app', key: 'password' }), { status: 200, text: 'v2-password' });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/app', key: 'port' }), { status: 200, text: '5432' });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/app', key: 'password', version: '1' }), { status: 200, text: 'v1-password' });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'secret/data/app', key: 'password', version: 2 }), { status: 200, text: 'v2-password' });
  });

  it('vault unseal with EncodingBase64 answers the original bytes of a value stored Base64-encoded', async () => {
    const res = await inject(app, { method: 'POST', url: '/secret/unseal', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ type: 'vault', provider: 'vault', location: 'v1/secret/data/app', key: 'blob', encoding_type: 'EncodingBase64' }) });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Buffer.from(res.body, 'base64'), BINARY);
    assert.equal((await unseal({ provider: 'vault', location: 'v1/secret/data/app', key: 'password', encoding_type: 'EncodingBase64' })).status, 400);
  });

  it('vault unseal reads KV v1 whole or one key; a version of a KV v1 secret is 400', async () => {
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/kv/legacy' }), { status: 200, text: '{"api_key":"k-legacy"}' });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/kv/legacy', key: 'api_key' }), { status: 200, text: 'k-legacy' });
    const versioned = await unseal({ provider: 'vault', location: 'v1/kv/legacy', version: '2' });
    assert.equal(versioned.status, 400);
    assert.match(versioned.text, /KV v1 secret, which has no versions/);
  });

  it('vault unseal answers 404 for a missing path, key or version, and for a missing provider', async () => {
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/nothing' }), { status: 404, text: 'v1/secret/data/nothing does not exist in Vault vault\n' });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/app', key: 'missing' }), { status: 404, text: 'key "missing" does not exist in v1/secret/data/app (version 2)\n' });
    assert.deepEqual(await unseal({ provider: 'vault', location: 'v1/secret/data/app', version: '9' }), { status: 404, text: 'version 9 of v1/secret/data/app does not exist\n' });
    assert.deepEqual(await unseal({ provider: 'nope', location: 'v1/kv/legacy' }), { status: 404, text: 'secret_management_access nope does not exist in namespace default or shared\n' });
    assert.equal((await unseal({ provider: 'vault', location: '../../etc' })).status, 400);
    assert.equal((await unseal({ provider: 'vault', location: 'v1/secret/data/app', version: 'latest' })).status, 400);
  });

  it('vault unseal with AppRole logs in once per provider, renews before the lease ends, and keeps the session while the provider is read again', async () => {
    const role = vault.createAppRole('sidecar', { tokenTtlSeconds: 60, tokenMaxTtlSeconds: 3600 });
    secrets.push(role.secretId);
    providers.answers.set('approle', base('approle', { auth: { type: 'app_role', role_id: role.roleId, secret_id: role.secretId }, cache_timeout_seconds: 0 }));
    const logins = count(vault, '/v1/auth/approle/login');
    for (let i = 0; i < 3; i++) assert.deepEqual(await unseal({ provider: 'approle', location: 'v1/secret/data/app', key: 'user' }), { status: 200, text: 'admin' });
    assert.equal(count(vault, '/v1/auth/approle/login'), logins + 1, 'one login for three reads');
    assert.equal(providers.reads.length, 3, 'cache_timeout_seconds 0: the provider is read (and the pod authorised) at every request');
    timers.advance(41_000);
    await unseal({ provider: 'approle', location: 'v1/secret/data/app', key: 'user' });
    assert.equal(count(vault, '/v1/auth/token/renew-self'), 1, 'renewed after two thirds of the 60 s lease');
    assert.equal(count(vault, '/v1/auth/approle/login'), logins + 1);
    assert.equal(sessions.size >= 2, true);
  });

  it('vault unseal reads the provider again only after its cache timeout, and a changed provider gets a new session', async () => {
    const role = vault.createAppRole('cached', { tokenTtlSeconds: 3600 });
    secrets.push(role.secretId);
    providers.answers.set('cached', base('cached', { auth: { type: 'app_role', role_id: role.roleId, secret_id: role.secretId }, cache_timeout_seconds: 60 }));
    const logins = count(vault, '/v1/auth/approle/login');
    for (let i = 0; i < 3; i++) await unseal({ provider: 'cached', location: 'v1/kv/legacy', key: 'api_key' });
    assert.equal(providers.reads.length, 1);
    timers.advance(60_000);
    await unseal({ provider: 'cached', location: 'v1/kv/legacy', key: 'api_key' });
    assert.deepEqual([providers.reads.length, count(vault, '/v1/auth/approle/login')], [2, logins + 1], 'read again, same credentials: same session');
    const rotated = vault.createAppRole('rotated', { tokenTtlSeconds: 3600 });
    secrets.push(rotated.secretId);
    providers.answers.set('cached', base('cached', { auth: { type: 'app_role', role_id: rotated.roleId, secret_id: rotated.secretId }, cache_timeout_seconds: 60 }));
    timers.advance(60_000);
    assert.deepEqual(await unseal({ provider: 'cached', location: 'v1/kv/legacy', key: 'api_key' }), { status: 200, text: 'k-legacy' });
    assert.equal(count(vault, '/v1/auth/approle/login'), logins + 2, 'new credentials: a new login');
  });

  it('vault unseal: a refused login is 403 and makes the next request read the provider again; a token whose policy does not cover the path 403', async () => {
    const role = vault.createAppRole('refused');
    secrets.push('wrong-secret-id');
    providers.answers.set('refused', base('refused', { auth: { type: 'app_role', role_id: role.roleId, secret_id: 'wrong-secret-id' }, cache_timeout_seconds: 3600 }));
    const refused = await unseal({ provider: 'refused', location: 'v1/kv/legacy' });
    assert.deepEqual(refused, { status: 403, text: 'Vault refused refused the AppRole login (400): invalid role or secret ID\n' });
    secrets.push(role.secretId);
    providers.answers.set('refused', base('refused', { auth: { type: 'app_role', role_id: role.roleId, secret_id: role.secretId }, cache_timeout_seconds: 3600 }));
    assert.deepEqual(await unseal({ provider: 'refused', location: 'v1/kv/legacy', key: 'api_key' }), { status: 200, text: 'k-legacy' }, 'the corrected provider is read at once');
    const narrow = vault.createToken({ paths: ['kv/*'] });
    secrets.push(narrow);
    providers.answers.set('narrow', base('narrow', { auth: { type: 'token', token: narrow } }));
    assert.equal((await unseal({ provider: 'narrow', location: 'v1/kv/legacy', key: 'api_key' })).status, 200);
    const denied = await unseal({ provider: 'narrow', location: 'v1/secret/data/app' });
    assert.equal(denied.status, 403);
    assert.match(denied.text, /^Vault narrow refused to read v1\/secret\/data\/app: permission denied/);
  });

  it('vault unseal over HTTPS with a private CA and SNI; an untrusted certificate or a name mismatch is 502', async () => {
    const tls = (name: string, over: ResolvedProvider['tls']): unknown => providers.answers.set(name, base(name, { server_endpoint: tlsVault.endpoint, scheme: 'HTTPS', tls: over, auth: { type: 'token', token: tlsVault.rootToken } }));
    tls('tls', { trusted_ca_pem: ca.certificate, sni: 'vault.test', skip_server_verification: false });
    assert.deepEqual(await unseal({ provider: 'tls', location: 'v1/secret/data/tls', key: 'password' }), { status: 200, text: 'over-tls' });
    tls('untrusted', { sni: 'vault.test', skip_server_verification: false });
    const untrusted = await unseal({ provider: 'untrusted', location: 'v1/secret/data/tls' });
    assert.equal(untrusted.status, 502);
    assert.match(untrusted.text, /^Vault untrusted at https:\/\/127\.0\.0\.1:\d+: TLS failed \(/);
    tls('mismatch', { trusted_ca_pem: ca.certificate, sni: 'other.test', skip_server_verification: false });
    const mismatch = await unseal({ provider: 'mismatch', location: 'v1/secret/data/tls' });
    assert.equal(mismatch.status, 502);
    assert.match(mismatch.text, /ERR_TLS_CERT_ALTNAME_INVALID/);
    tls('skip', { skip_server_verification: true });
    assert.deepEqual(await unseal({ provider: 'skip', location: 'v1/secret/data/tls', key: 'password' }), { status: 200, text: 'over-tls' });
  });

  it('vault unseal: a provider whose endpoint is not host:port is 400; once corrected it reads', async () => {
    providers.answers.set('broken', base('broken', { server_endpoint: 'vault-without-port' }));
    assert.deepEqual(await unseal({ provider: 'broken', location: 'v1/kv/legacy' }), { status: 400, text: 'server_endpoint "vault-without-port" is not host:port\n' });
    providers.answers.set('broken', base('broken'));
    assert.deepEqual(await unseal({ provider: 'broken', location: 'v1/kv/legacy', key: 'api_key' }), { status: 200, text: 'k-legacy' });
  });

  it('vault unseal: an endpoint nobody listens on is 503, a sealed Vault 503', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    providers.answers.set('down', base('down', { server_endpoint: `127.0.0.1:${port}` }));
    const down = await unseal({ provider: 'down', location: 'v1/kv/legacy' });
    assert.equal(down.status, 503);
    assert.match(down.text, new RegExp(`^Vault down at http://127\\.0\\.0\\.1:${port} is unreachable`));
    vault.setSealed(true);
    try {
      const sealed = await unseal({ provider: 'vault', location: 'v1/kv/legacy' });
      assert.deepEqual(sealed, { status: 503, text: 'Vault vault is unavailable (503): Vault is sealed\n' });
    } finally {
      vault.setSealed(false);
    }
  });
});
