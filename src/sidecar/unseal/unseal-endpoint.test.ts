import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { RequestListener } from 'node:http';
import { inject } from 'light-my-request';
import type { ResolvedProvider } from '../../secrets/resolved-provider.js';
import { SecretError, type SecretErrorCode, UNSEAL_MESSAGES } from '../../secrets/secret-error.js';
import { captureLogger } from '../../secrets/testing/capture-logger.js';
import type { VaultReadRequest, VaultReadResult } from '../../secrets/vault/vault-client.js';
import { VaultError, type VaultErrorCode } from '../../secrets/vault/vault-error.js';
import { fakeTimers } from '../../common/testing/fake-timers.js';
import type { IdentityMaterial } from '../identity-material.js';
import { buildSidecarApp, IDENTITY_ENDPOINTS } from '../sidecar-http-app.js';
import type { SidecarState } from '../sidecar-state.js';
import type { PlatformSecrets, UnsealedSecret } from './platform-secrets.js';
import { SecretCache } from './secret-cache.js';
import { SidecarUnsealer } from './sidecar-unsealer.js';
import { UnsealError } from './unseal-error.js';
import { unsealEndpoint } from './unseal-endpoint.js';
import { INTERNAL_MESSAGES } from './unseal-failure.js';
import { VaultProviders } from './vault-providers.js';

const material = { clientCertificate: 'CERT', clientKey: 'KEY', chain: 'CHAIN' } as unknown as IdentityMaterial;
const validity = { notBefore: 0, notAfter: 1 };
const STATES: Record<SidecarState['kind'], SidecarState> = {
  INITIALIZING: { kind: 'INITIALIZING', since: 0, failures: 0 },
  READY: { kind: 'READY', identity: validity, issuedAt: 0, inExpiryWindow: false, failures: 0 },
  DEGRADED: { kind: 'DEGRADED', identity: validity, issuedAt: 0, failures: 1, lastFailureAt: 0, lastError: 'x' },
  HALTED: { kind: 'HALTED', since: 0, reason: 'IDENTITY_EXPIRED' },
};

const SECRET = 'correct horse battery staple';
const BINARY = Buffer.from([0, 1, 2, 0xfe, 0xff, 10, 13, 0]);
const loc = (name: string): string => `string:///${Buffer.from(`blob-${name}`).toString('base64')}`;

/** A control plane that answers per location: a plaintext with a cache timeout, or an error. */
class FakePlatformSecrets implements PlatformSecrets {
  readonly answers = new Map<string, UnsealedSecret | Error>();
  readonly providers = new Map<string, ResolvedProvider | Error>();
  readonly calls: string[] = [];
  /** The plaintext buffers answered, to see what the sidecar leaves in them. */
  readonly answered: Buffer[] = [];
  delayMs = 0;

  async unseal(location: string): Promise<UnsealedSecret> {
    this.calls.push(location);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    const answer = this.answers.get(location);
    if (answer === undefined) throw SecretError.unseal('NotBlindfold');
    if (answer instanceof Error) throw answer;
    const plaintext = Buffer.from(answer.plaintext);
    this.answered.push(plaintext);
    return { plaintext, cacheTimeoutSeconds: answer.cacheTimeoutSeconds };
  }

  provider(name: string): Promise<ResolvedProvider> {
    const answer = this.providers.get(name);
    if (answer === undefined) return Promise.reject(new SecretError('ProviderNotFound', `secret_management_access ${name} does not exist in namespace default or shared`));
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }

  close(): void {}
}

const provider = (name: string): ResolvedProvider => ({
  name,
  namespace: 'default',
  provider_name: 'vault',
  server_endpoint: 'vault.test:8200',
  scheme: 'HTTPS',
  tls: { skip_server_verification: false },
  auth: { type: 'token', token: 'hvs.never-logged' },
  cache_timeout_seconds: 0,
});

describe('POST /secret/unseal (endpoint, cache and error mapping; control plane and Vault faked)', () => {
  const timers = fakeTimers();
  const log = captureLogger();
  const secrets = new FakePlatformSecrets();
  const vaultReads: VaultReadRequest[] = [];
  let vaultAnswer: (request: VaultReadRequest) => VaultReadResult = () => ({ value: Buffer.from('{}'), kvVersion: 2 });
  const cache = new SecretCache(timers);
  let state: SidecarState = STATES.READY;
  let app: RequestListener;

  /** `contentType` null sends none. */
  const unseal = (body: unknown, contentType: string | null = 'application/json') =>
    inject(app, { method: 'POST', url: '/secret/unseal', headers: contentType === null ? {} : { 'content-type': contentType }, payload: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)) });
  const expect = async (body: unknown, status: number, text: string, contentType: string | null = 'application/json'): Promise<void> => {
    const res = await unseal(body, contentType);
    assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [status, 'text/plain; charset=utf-8', text], JSON.stringify(body));
  };

  before(() => {
    const vault = new VaultProviders({
      secrets,
      now: () => timers.now(),
      connect: () => ({
        read: (request) => {
          vaultReads.push(request);
          return Promise.resolve().then(() => vaultAnswer(request));
        },
        close: () => undefined,
      }),
    });
    const unsealer = new SidecarUnsealer({ secrets, cache, vault });
    app = buildSidecarApp({
      view: { current: () => state, identity: () => (state.kind === 'READY' || state.kind === 'DEGRADED' ? material : undefined) },
      logger: log.logger,
      endpoints: [...IDENTITY_ENDPOINTS, unsealEndpoint(unsealer, log.logger)],
      bodyLimit: 4096,
    });
    secrets.answers.set(loc('text'), { plaintext: Buffer.from(SECRET), cacheTimeoutSeconds: 900 });
    secrets.answers.set(loc('binary'), { plaintext: BINARY, cacheTimeoutSeconds: 900 });
    secrets.answers.set(loc('base64'), { plaintext: Buffer.from(BINARY.toString('base64') + '\n'), cacheTimeoutSeconds: 900 });
    secrets.answers.set(loc('uncached'), { plaintext: Buffer.from(SECRET), cacheTimeoutSeconds: 0 });
    secrets.answers.set(loc('uncached-base64'), { plaintext: Buffer.from(BINARY.toString('base64') + '\n'), cacheTimeoutSeconds: 0 });
  });
  beforeEach(() => {
    state = STATES.READY;
    cache.clear();
    secrets.calls.length = 0;
    secrets.answered.length = 0;
    vaultReads.length = 0;
  });
  after(() => {
    cache.clear();
    const logs = log.text();
    assert.match(logs, /"source":"control-plane"/, 'requests are logged at debug');
    for (const secret of [SECRET, Buffer.from(SECRET).toString('base64'), BINARY.toString('base64'), 'hvs.never-logged', 'KEY', loc('text'), 'blob-text', 'vault-value']) {
      assert.ok(!logs.includes(secret), `the log contains ${secret}`);
    }
  });

  it('unseal answers 200 text/plain with the Base64 of the secret, no newline, not cacheable by HTTP caches', async () => {
    const res = await unseal({ type: 'blindfold', location: loc('text') });
    assert.deepEqual([res.statusCode, res.headers['content-type'], res.headers['cache-control'], res.body], [200, 'text/plain; charset=utf-8', 'no-store', Buffer.from(SECRET).toString('base64')]);
    assert.deepEqual(Buffer.from((await unseal({ type: 'blindfold', location: loc('binary') })).body, 'base64'), BINARY);
  });

  it('unseal with EncodingBase64 answers the original bytes of a secret Base64-encoded before encryption; text that is not Base64 is 400', async () => {
    const res = await unseal({ type: 'blindfold', location: loc('base64'), encoding_type: 'EncodingBase64' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(Buffer.from(res.body, 'base64'), BINARY);
    await expect({ type: 'blindfold', location: loc('text'), encoding_type: 'EncodingBase64' }, 400, 'the secret is not Base64 text, but encoding_type is EncodingBase64\n');
    const none = await unseal({ type: 'blindfold', location: loc('base64'), encoding_type: 'EncodingNone' });
    assert.equal(Buffer.from(none.body, 'base64').toString(), BINARY.toString('base64') + '\n', 'EncodingNone returns the bytes as sealed');
  });

  it('unseal needs content-type application/json: 415 without it or with another type; parameters and case do not matter', async () => {
    const body = { type: 'blindfold', location: loc('text') };
    await expect(body, 415, 'no content-type was sent: POST /secret/unseal takes a JSON body with content-type: application/json\n', null);
    await expect(body, 415, 'content-type "text/plain" is not supported: POST /secret/unseal takes a JSON body with content-type: application/json\n', 'text/plain');
    for (const other of ['application/x-www-form-urlencoded', 'application/merge-patch+json', 'multipart/form-data; boundary=x']) assert.equal((await unseal(body, other)).statusCode, 415, other);
    for (const ok of ['application/json; charset=utf-8', 'Application/JSON']) assert.equal((await unseal(body, ok)).statusCode, 200, ok);
  });

  it('unseal answers 400 naming what is wrong with an invalid body, in any state', async () => {
    await expect('{"type":"blindfold",', 400, 'the body is not valid JSON; send {"type": "blindfold", "location": "string:///…"} or {"type": "vault", "provider": …, "location": …}\n');
    await expect('', 400, 'the body is not valid JSON; send {"type": "blindfold", "location": "string:///…"} or {"type": "vault", "provider": …, "location": …}\n');
    await expect([], 400, 'the body must be a JSON object with a "type" of blindfold or vault\n');
    await expect({ type: 'secret' }, 400, 'type: "secret" is not one of blindfold, vault\n');
    await expect({ type: 'blindfold' }, 400, 'location: required, the blindfold secret as string:///<base64>\n');
    await expect({ type: 'vault', location: 'v1/kv/x' }, 400, 'provider: required, the name of a secret_management_access object\n');
    await expect({ type: 'blindfold', location: loc('text'), encoding_type: 'base64' }, 400, 'encoding_type: "base64" is not one of EncodingNone, EncodingBase64\n');
    state = STATES.INITIALIZING;
    await expect({ type: 'blindfold' }, 400, 'location: required, the blindfold secret as string:///<base64>\n');
    assert.equal(secrets.calls.length, 0);
  });

  for (const kind of ['INITIALIZING', 'HALTED'] as const) {
    it(`unseal answers 503 with the state in ${kind}, and asks nobody`, async () => {
      state = STATES[kind];
      await expect({ type: 'blindfold', location: loc('text') }, 503, `edgeplane sidecar is still not ready, current status => ${kind}, please retry after some time\n`);
      await expect({ type: 'vault', provider: 'vault', location: 'v1/kv/x' }, 503, `edgeplane sidecar is still not ready, current status => ${kind}, please retry after some time\n`);
      assert.deepEqual([secrets.calls.length, vaultReads.length], [0, 0]);
    });
  }

  it('unseal still serves in DEGRADED (the identity is still valid)', async () => {
    state = STATES.DEGRADED;
    await expect({ type: 'blindfold', location: loc('text') }, 200, Buffer.from(SECRET).toString('base64'));
  });

  const FORWARDED: Array<[SecretErrorCode, number, string]> = [
    ['Tampered', 400, UNSEAL_MESSAGES.Tampered],
    ['NotBlindfold', 400, UNSEAL_MESSAGES.NotBlindfold],
    ['UnknownAlgorithm', 404, UNSEAL_MESSAGES.UnknownAlgorithm],
    ['PolicyOrKeyNotFound', 404, UNSEAL_MESSAGES.PolicyOrKeyNotFound],
    ['PolicyDenied', 403, UNSEAL_MESSAGES.PolicyDenied],
    ['Internal', 500, UNSEAL_MESSAGES.Internal],
    ['Unauthenticated', 401, 'a pod client certificate is required: the pod no longer exists'],
    ['Unavailable', 503, 'the store is unavailable; retry later'],
    ['InvalidArgument', 400, 'location: required, the string:///… blindfold location'],
  ];
  for (const [code, status, message] of FORWARDED) {
    it(`unseal forwards the control plane's ${code} as ${status} with its message`, async () => {
      secrets.answers.set(loc(code), code === 'Internal' ? new SecretError('Internal', 'internal error') : new SecretError(code, message));
      await expect({ type: 'blindfold', location: loc(code) }, status, `${message}\n`);
    });
  }

  it('unseal answers 500 with the platform\'s message when the control plane cannot be asked or something unexpected fails', async () => {
    secrets.answers.set(loc('down'), new UnsealError('Internal', 'POST https://cp/api/secret_management/v1/unseal failed: connect ECONNREFUSED'));
    secrets.answers.set(loc('bug'), new TypeError('x is undefined'));
    await expect({ type: 'blindfold', location: loc('down') }, 500, `${UNSEAL_MESSAGES.Internal}\n`);
    await expect({ type: 'blindfold', location: loc('bug') }, 500, `${UNSEAL_MESSAGES.Internal}\n`);
    assert.match(log.text(), /"detail":"POST https:\/\/cp\/api\/secret_management\/v1\/unseal failed: connect ECONNREFUSED"/, 'the reason is logged');
  });

  it('unseal caches a value for the policy\'s timeout: hits do not ask the control plane, expiry does (fake time)', async () => {
    const body = { type: 'blindfold', location: loc('text') };
    for (let i = 0; i < 3; i++) await expect(body, 200, Buffer.from(SECRET).toString('base64'));
    assert.equal(secrets.calls.length, 1);
    timers.advance(900_000 - 1);
    await expect(body, 200, Buffer.from(SECRET).toString('base64'));
    assert.equal(secrets.calls.length, 1);
    timers.advance(1);
    assert.equal(cache.stats().entries, 0, 'dropped at the timeout without a read');
    await expect(body, 200, Buffer.from(SECRET).toString('base64'));
    assert.equal(secrets.calls.length, 2);
  });

  it('unseal caches what a location opens to once, whatever encodings it is asked with; each request gets its own encoding', async () => {
    const hitsBefore = cache.stats().hits;
    const base64 = await unseal({ type: 'blindfold', location: loc('base64'), encoding_type: 'EncodingBase64' });
    const none = await unseal({ type: 'blindfold', location: loc('base64') });
    const again = await unseal({ type: 'blindfold', location: loc('base64'), encoding_type: 'EncodingBase64' });
    assert.deepEqual([Buffer.from(base64.body, 'base64'), Buffer.from(again.body, 'base64')], [BINARY, BINARY]);
    assert.equal(Buffer.from(none.body, 'base64').toString(), BINARY.toString('base64') + '\n', 'EncodingNone: the sealed bytes as they are');
    assert.deepEqual([secrets.calls.length, cache.stats().entries, cache.stats().hits - hitsBefore], [1, 1, 2]);
    await expect({ type: 'blindfold', location: loc('text') }, 200, Buffer.from(SECRET).toString('base64'));
    await expect({ type: 'blindfold', location: loc('text'), encoding_type: 'EncodingBase64' }, 400, 'the secret is not Base64 text, but encoding_type is EncodingBase64\n');
    assert.deepEqual([secrets.calls.length, cache.stats().entries], [2, 2], 'a cached plaintext that is not Base64 is refused from the cache too');
  });

  it('unseal does not cache when the policy has no decrypt_cache_timeout, nor failures', async () => {
    for (let i = 0; i < 3; i++) await unseal({ type: 'blindfold', location: loc('uncached') });
    for (let i = 0; i < 2; i++) await unseal({ type: 'blindfold', location: loc('PolicyDenied') });
    assert.deepEqual([secrets.calls.length, cache.stats().entries], [5, 0]);
  });

  it('unseal sends concurrent requests for one secret to the control plane once', async () => {
    secrets.delayMs = 20;
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => unseal({ type: 'blindfold', location: loc('text') })));
      assert.deepEqual(new Set(answers.map((a) => `${a.statusCode} ${a.body}`)), new Set([`200 ${Buffer.from(SECRET).toString('base64')}`]));
      assert.equal(secrets.calls.length, 1);
      const mixed = await Promise.all([undefined, 'EncodingBase64', undefined, 'EncodingBase64'].map((encoding_type) => unseal({ type: 'blindfold', location: loc('uncached-base64'), encoding_type })));
      assert.deepEqual(mixed.map((a) => a.statusCode), [200, 200, 200, 200]);
      assert.deepEqual([Buffer.from(mixed[0]?.body ?? '', 'base64').toString(), Buffer.from(mixed[1]?.body ?? '', 'base64')], [BINARY.toString('base64') + '\n', BINARY], 'each request gets its own encoding of the one answer');
      assert.equal(secrets.calls.length, 2, 'one call for the four');
      assert.ok(secrets.answered.every((b) => b.every((x) => x === 0)), 'the control plane\'s answers are zeroed once every waiting request has its copy');
    } finally {
      secrets.delayMs = 0;
    }
  });

  it('unseal of type vault answers the value read through the provider\'s session, honouring key, version and encoding', async () => {
    secrets.providers.set('vault', provider('vault'));
    vaultAnswer = (request) => ({ value: Buffer.from(request.key === 'bin' ? BINARY.toString('base64') : 'vault-value'), kvVersion: 2, version: 3 });
    await expect({ type: 'vault', provider: 'vault', location: 'v1/secret/data/app', key: 'password', version: '3' }, 200, Buffer.from('vault-value').toString('base64'));
    const bin = await unseal({ type: 'vault', provider: 'vault', location: 'v1/secret/data/app', key: 'bin', encoding_type: 'EncodingBase64' });
    assert.deepEqual(Buffer.from(bin.body, 'base64'), BINARY);
    assert.deepEqual(vaultReads, [
      { location: 'v1/secret/data/app', key: 'password', version: '3' },
      { location: 'v1/secret/data/app', key: 'bin' },
    ]);
    await expect({ type: 'vault', provider: 'vault', location: 'v1/secret/data/app' }, 200, Buffer.from('vault-value').toString('base64'));
  });

  const VAULT_FAILURES: Array<[VaultErrorCode, number]> = [
    ['LoginRefused', 403],
    ['PermissionDenied', 403],
    ['SecretNotFound', 404],
    ['KeyNotFound', 404],
    ['VersionNotFound', 404],
    ['InvalidRequest', 400],
    ['Unreachable', 503],
    ['VaultUnavailable', 503],
    ['TlsFailure', 502],
    ['BadResponse', 502],
  ];
  for (const [code, status] of VAULT_FAILURES) {
    it(`unseal of type vault answers the Vault client's ${code} as ${status} with its message`, async () => {
      secrets.providers.set('vault', provider('vault'));
      vaultAnswer = () => {
        throw new VaultError(code, `Vault vault: ${code} happened`);
      };
      await expect({ type: 'vault', provider: 'vault', location: 'v1/secret/data/app' }, status, `Vault vault: ${code} happened\n`);
    });
  }

  it('unseal of type vault: a missing provider is 404, a provider whose credentials the pod may not unseal 403, one without credentials 403', async () => {
    await expect({ type: 'vault', provider: 'nope', location: 'v1/kv/x' }, 404, 'secret_management_access nope does not exist in namespace default or shared\n');
    secrets.providers.set('denied', SecretError.unseal('PolicyDenied'));
    await expect({ type: 'vault', provider: 'denied', location: 'v1/kv/x' }, 403, `provider denied: ${UNSEAL_MESSAGES.PolicyDenied}\n`);
    secrets.providers.set('anonymous', { ...provider('anonymous'), auth: { type: 'none' } });
    await expect({ type: 'vault', provider: 'anonymous', location: 'v1/kv/x' }, 403, 'provider anonymous has no vault_auth_info (token or app_role_auth)\n');
    secrets.providers.set('down', new UnsealError('Internal', 'GET https://cp/… failed: ECONNREFUSED'));
    await expect({ type: 'vault', provider: 'down', location: 'v1/kv/x' }, 500, `${INTERNAL_MESSAGES.vault}\n`);
  });

  it('other methods on /secret/unseal answer 405 with Allow; a body over the limit 413', async () => {
    const res = await inject(app, { method: 'GET', url: '/secret/unseal' });
    assert.deepEqual([res.statusCode, res.headers['allow']], [405, 'POST']);
    const big = await unseal({ type: 'blindfold', location: 'string:///' + 'A'.repeat(5000) });
    assert.equal(big.statusCode, 413);
  });
});
