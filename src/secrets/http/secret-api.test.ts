import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { secretCommand } from '../../cli/secret-command.js';
import { startConfigHarness, type ConfigHarness } from '../../server/testing/config-harness.js';
import { blindfoldEncrypt } from '../blindfold-encrypt.js';
import { LOCATION_PREFIX } from '../blindfold-format.js';
import { BUILTIN_POLICY_NAME } from '../../config/builtin-secret-policy.js';
import { decodeSecret } from '../encoding-type.js';
import { encryptionTargetFrom } from '../encryption-target.js';
import type { PodIdentity } from '../ports.js';
import { UNSEAL_MESSAGES } from '../secret-error.js';
import { captureLogger } from '../testing/capture-logger.js';
import { memoryKeySealer } from '../testing/memory-key-sealer.js';
import { testPodIdentity } from '../testing/pod-identities.js';
import { createPrivateCa, type IssuedPair } from '../testing/private-ca.js';
import { testPodCertificateVerifier } from '../testing/test-pod-verifier.js';

const BIN = fileURLToPath(new URL('../../../../bin/edgeplane.js', import.meta.url));
const API = '/api/secret_management';
const PLAINTEXT = 'the launch code is 0000';
const BINARY = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13, 0]);

function cli(args: string[], input?: Buffer): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? Buffer.alloc(0));
  });
}

describe('secret management API over HTTPS (control plane with a test PodCertificateVerifier injected)', () => {
  const verifier = testPodCertificateVerifier();
  const log = captureLogger();
  const pods = new Map<string, IssuedPair>();
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-secrets-'));
  let h: ConfigHarness;
  let betaToken: string;
  let webOnlyDocument: unknown;
  let webLocation: string;

  const pod = async (name: string, identity: PodIdentity): Promise<void> => {
    const pair = await (await caPromise).issue({ commonName: identity.pod, usage: 'client' });
    verifier.register(pair.certificate, identity);
    pods.set(name, pair);
  };
  const caPromise = createPrivateCa('Test pod CA');
  const asPod = (name: string, body: unknown, method = 'POST', path = `${API}/v1/unseal`): ReturnType<ConfigHarness['call']> => {
    const pair = pods.get(name) as IssuedPair;
    return h.call(method, path, { token: null, cert: pair.certificate, key: pair.key, ...(body === undefined ? {} : { body }) });
  };

  before(async () => {
    h = await startConfigHarness({ controllers: [], logger: log.logger, secrets: { sealer: memoryKeySealer(), podCertificates: verifier } });
    betaToken = (await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'beta' } })).json<{ admin_token: string }>().admin_token;
    await pod('web', testPodIdentity());
    await pod('worker', testPodIdentity({ pod: 'worker-0', serviceAccount: 'worker', labels: { app: 'worker' } }));
    await pod('beta-web', testPodIdentity({ tenant: 'beta' }));
    const created = await h.call('POST', `${API}/namespaces/default/secret_policys`, {
      body: { metadata: { name: 'web-only' }, spec: { algo: 'DENY_OVERRIDES', rules: [{ metadata: { name: 'web' }, spec: { action: 'ALLOW', client_name: 'spiffe://acme/ns/default/sa/web' } }], decrypt_cache_timeout: '15m' } },
    });
    assert.equal(created.status, 200, created.body);
  });

  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
    const logs = log.text();
    assert.match(logs, /secret unsealed/);
    for (const secret of [PLAINTEXT, Buffer.from(PLAINTEXT).toString('base64'), BINARY.toString('base64'), 'PRIVATE KEY', 'hvs.vault-token']) {
      assert.ok(!logs.includes(secret), `the control plane logged ${secret}`);
    }
  });

  it('get_public_key makes the tenant\'s first key on first need, answers it again, and selects versions', async () => {
    const first = await h.call('GET', `${API}/get_public_key`);
    assert.equal(first.status, 200, first.body);
    const data = first.json<{ data: Record<string, unknown> }>().data;
    assert.deepEqual(Object.keys(data).sort(), ['algorithm', 'content_encryption', 'creation_timestamp', 'key_version', 'modulus_length', 'public_key_jwk', 'public_key_pem', 'tenant']);
    assert.deepEqual([data['tenant'], data['key_version'], data['algorithm'], data['modulus_length']], ['acme', 1, 'RSA-OAEP-256', 3072]);
    assert.deepEqual((await h.call('GET', `${API}/get_public_key`)).json(), first.json());
    assert.deepEqual((await h.call('GET', `${API}/get_public_key?key_version=1`)).json(), first.json());
    const missing = await h.call('GET', `${API}/get_public_key?key_version=7`);
    assert.deepEqual([missing.status, missing.json()], [404, { code: 5, details: [], message: 'key version 7 of tenant acme does not exist', reason: 'NotFound' }]);
    assert.equal((await h.call('GET', `${API}/get_public_key?key_version=one`)).status, 400);
    assert.equal((await h.call('GET', `${API}/get_public_key`, { token: null })).status, 401);
    const beta = (await h.call('GET', `${API}/get_public_key`, { token: betaToken })).json<{ data: { tenant: string; public_key_pem: string } }>().data;
    assert.equal(beta.tenant, 'beta');
    assert.notEqual(beta.public_key_pem, data['public_key_pem']);
  });

  it('get_policy_document answers the document of a tenant\'s policy, including the built-in one in shared; other tenants get 404', async () => {
    const doc = await h.call('GET', `${API}/namespaces/default/secret_policys/web-only/get_policy_document`);
    assert.equal(doc.status, 200, doc.body);
    webOnlyDocument = doc.json();
    const data = doc.json<{ data: Record<string, unknown> }>().data;
    assert.deepEqual(Object.keys(data).sort(), ['name', 'namespace', 'policy_id', 'policy_info', 'tenant']);
    assert.match(data['policy_id'] as string, /^[1-9][0-9]*$/);
    assert.deepEqual([data['name'], data['namespace'], data['tenant'], (data['policy_info'] as { algo: string }).algo], ['web-only', 'default', 'acme', 'DENY_OVERRIDES']);
    const builtin = (await h.call('GET', `${API}/namespaces/shared/secret_policys/${BUILTIN_POLICY_NAME}/get_policy_document`)).json<{ data: { policy_info: { rules: unknown[] } } }>();
    assert.deepEqual(builtin.data.policy_info.rules, [
      { metadata: { name: 'allow-tenant-workloads', description: 'Every workload of tenant acme.' }, spec: { action: 'ALLOW', client_name_matcher: { exact_values: [], regex_values: ['spiffe://acme/.*'] } } },
    ]);
    const other = await h.call('GET', `${API}/namespaces/default/secret_policys/web-only/get_policy_document`, { token: betaToken });
    assert.deepEqual([other.status, other.json()['message']], [404, 'secret_policy web-only does not exist in namespace default']);
  });

  it('unseal: the pod the policy allows gets the plaintext and cache timeout; another pod and another tenant get 403 with the platform\'s message', async () => {
    const key = (await h.call('GET', `${API}/get_public_key`)).json();
    webLocation = await blindfoldEncrypt(Buffer.from(PLAINTEXT), encryptionTargetFrom(key, webOnlyDocument));
    const ok = await asPod('web', { location: webLocation });
    assert.equal(ok.status, 200, ok.body);
    assert.deepEqual(ok.json(), { data: { plaintext: Buffer.from(PLAINTEXT).toString('base64'), decrypt_cache_timeout: '15m', cache_timeout_seconds: 900 } });
    for (const other of ['worker', 'beta-web']) {
      const denied = await asPod(other, { location: webLocation });
      assert.deepEqual([denied.status, denied.json()], [403, { code: 7, details: [], message: UNSEAL_MESSAGES.PolicyDenied, reason: 'PolicyDenied' }]);
    }
  });

  it('unseal: a flipped byte anywhere in the blob is 400; bad requests are 400, no pod certificate 401, other methods 405', async () => {
    const jwe = Buffer.from(webLocation.slice(LOCATION_PREFIX.length), 'base64');
    const segments = jwe.toString().split('.');
    // One position in each of the five segments (header, wrapped key, IV, ciphertext, tag).
    let offset = 0;
    for (const segment of segments) {
      const flipped = Buffer.from(jwe);
      const at = offset + Math.floor(segment.length / 2);
      flipped[at] = (flipped[at] as number) ^ 0x04;
      const res = await asPod('web', { location: LOCATION_PREFIX + flipped.toString('base64') });
      assert.equal(res.status, 400, `byte ${at}: ${res.body}`);
      assert.ok([UNSEAL_MESSAGES.Tampered, UNSEAL_MESSAGES.NotBlindfold].includes(res.json()['message'] as never));
      offset += segment.length + 1;
    }
    assert.equal((await asPod('web', {})).status, 400);
    assert.equal((await h.call('POST', `${API}/v1/unseal`, { token: null, raw: '{"location":', cert: pods.get('web')?.certificate ?? '', key: pods.get('web')?.key ?? '' })).status, 400);
    const anonymous = await h.call('POST', `${API}/v1/unseal`, { token: h.adminToken, body: { location: webLocation } });
    assert.equal(anonymous.status, 401, 'an API token is no pod identity');
    assert.equal((await asPod('web', undefined, 'GET')).status, 405);
  });

  it('rotate_key (admin in system) adds a version; blobs of the old version still unseal; a monitor is refused', async () => {
    const rotated = await h.call('POST', `${API}/rotate_key`);
    assert.equal(rotated.status, 200, rotated.body);
    assert.equal(rotated.json<{ data: { key_version: number } }>().data.key_version, 2);
    assert.equal((await h.call('GET', `${API}/get_public_key`)).json<{ data: { key_version: number } }>().data.key_version, 2);
    assert.equal((await asPod('web', { location: webLocation })).status, 200);
    const issued = await h.call('POST', '/api/web/namespaces/system/api_credentials', {
      body: { name: 'reader', namespace: 'system', expiration_days: 1, spec: { type: 'API_TOKEN', namespace_roles: [{ namespace: '*', role: 'monitor' }] } },
    });
    const monitor = issued.json<{ data: string }>().data;
    const refused = await h.call('POST', `${API}/rotate_key`, { token: monitor });
    assert.equal(refused.status, 403);
    assert.equal((await h.call('GET', `${API}/get_public_key`, { token: monitor })).status, 200, 'a monitor may read the public key');
  });

  it('providers (test PodCertificateVerifier injected): a pod gets its provider with the credentials resolved for it; a missing provider is 404', async () => {
    const builtinDoc = (await h.call('GET', `${API}/namespaces/shared/secret_policys/${BUILTIN_POLICY_NAME}/get_policy_document`)).json();
    const key = (await h.call('GET', `${API}/get_public_key`)).json();
    const token = await blindfoldEncrypt(Buffer.from('hvs.vault-token'), encryptionTargetFrom(key, builtinDoc));
    const ca = (await caPromise).certificate;
    const spec = {
      provider_name: 'vault',
      access_info: { server_endpoint: 'vault.example:8200', scheme: 'HTTPS', tls_config: { trusted_ca_url: `string:///${Buffer.from(ca).toString('base64')}`, sni: 'vault.example' } },
      vault_auth_info: { token: { blindfold_secret_info: { location: token } } },
    };
    assert.equal((await h.call('POST', '/api/config/namespaces/shared/secret_management_accesss', { body: { metadata: { name: 'vault' }, spec } })).status, 200);
    const res = await asPod('worker', undefined, 'GET', `${API}/v1/providers/vault`);
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json(), {
      data: {
        name: 'vault',
        namespace: 'shared',
        provider_name: 'vault',
        server_endpoint: 'vault.example:8200',
        scheme: 'HTTPS',
        tls: { trusted_ca_pem: ca, sni: 'vault.example', skip_server_verification: false },
        auth: { type: 'token', token: 'hvs.vault-token' },
        cache_timeout_seconds: 3600,
      },
    });
    const missing = await asPod('worker', undefined, 'GET', `${API}/v1/providers/nope`);
    assert.deepEqual([missing.status, missing.json()['reason']], [404, 'ProviderNotFound']);
    const otherTenant = await asPod('beta-web', undefined, 'GET', `${API}/v1/providers/vault`);
    assert.equal(otherTenant.status, 404);
    for (const name of ['a%20b', 'v%C3%A4ult', 'a%00b', 'Vault']) {
      const bad = await asPod('worker', undefined, 'GET', `${API}/v1/providers/${name}`);
      assert.deepEqual([bad.status, bad.json()['reason']], [400, 'InvalidArgument'], name);
    }
  });

  it('metrics count unseal outcomes by code, and carry nothing else', async () => {
    const metrics = (await h.call('GET', '/metrics', { token: null })).body;
    assert.match(metrics, /edgeplane_secret_unseal_total\{outcome="Unsealed"\} [1-9]/);
    assert.match(metrics, /edgeplane_secret_unseal_total\{outcome="PolicyDenied"\} [1-9]/);
    assert.match(metrics, /edgeplane_secret_unseal_total\{outcome="Tampered"\} [1-9]/);
    for (const secret of [PLAINTEXT, Buffer.from(PLAINTEXT).toString('base64'), 'hvs.vault-token']) assert.ok(!metrics.includes(secret));
  });

  it('CLI: get-public-key, get-policy-document, encrypt --base64 (round trip through unseal and EncodingBase64), rotate-key, --help', async () => {
    const connection = ['--home', h.home];
    const key = await cli(['secret', 'get-public-key', ...connection]);
    assert.equal(key.status, 0, key.stderr);
    assert.equal((JSON.parse(key.stdout) as { data: { key_version: number } }).data.key_version, 2);
    const policy = await cli(['secret', 'get-policy-document', ...connection, '-n', 'default', '--name', 'web-only']);
    assert.equal(policy.status, 0, policy.stderr);
    writeFileSync(join(dir, 'key.json'), key.stdout);
    writeFileSync(join(dir, 'policy.json'), policy.stdout);
    const files = ['--public-key', join(dir, 'key.json'), '--policy-document', join(dir, 'policy.json')];
    for (const base64 of [false, true]) {
      const encrypted = await cli(['secret', 'encrypt', ...files, ...(base64 ? ['--base64'] : [])], BINARY);
      assert.equal(encrypted.status, 0, encrypted.stderr);
      assert.match(encrypted.stdout, /^string:\/\/\/[A-Za-z0-9+/=]+\n$/);
      const res = await asPod('web', { location: encrypted.stdout.trim() });
      assert.equal(res.status, 200, res.body);
      const sealed = Buffer.from(res.json<{ data: { plaintext: string } }>().data.plaintext, 'base64');
      assert.deepEqual(decodeSecret(sealed, base64 ? 'EncodingBase64' : 'EncodingNone'), BINARY);
    }
    const missing = await cli(['secret', 'get-policy-document', ...connection, '-n', 'default', '--name', 'ghost']);
    assert.deepEqual([missing.status, missing.stderr], [1, 'Error from server (NotFound): secret_policy ghost does not exist in namespace default\n']);
    const mismatched = await cli(['secret', 'encrypt', '--public-key', join(dir, 'key.json'), '--policy-document', join(dir, 'key.json')]);
    assert.equal(mismatched.status, 1);
    assert.match(mismatched.stderr, /the policy document has no policy_id/);
    const rotated = await cli(['secret', 'rotate-key', ...connection]);
    assert.equal((JSON.parse(rotated.stdout) as { data: { key_version: number } }).data.key_version, 3);
    const help = await cli(['secret', 'encrypt', '--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: edgeplane secret encrypt \[options\]\n[^]*--base64/);
    // The other commands' help, without a process each.
    const secret = secretCommand();
    for (const command of ['get-public-key', 'get-policy-document', 'rotate-key']) {
      assert.match(secret.commands.find((c) => c.name() === command)?.helpInformation() ?? '', new RegExp(`^Usage: secret ${command} \\[options\\]\n[^]*--server <url>`));
    }
  });
});
