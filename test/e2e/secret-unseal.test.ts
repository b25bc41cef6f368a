import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BUILTIN_POLICY_NAME } from '../../src/config/builtin-secret-policy.js';
import { UNSEAL_MESSAGES } from '../../src/secrets/secret-error.js';
import { captureLogger } from '../../src/secrets/testing/capture-logger.js';
import { createPrivateCa, type PrivateCa } from '../../src/secrets/testing/private-ca.js';
import { startVaultTestServer, type VaultTestServer } from '../../src/secrets/testing/vault/vault-test-server.js';
import type { RunningSidecar } from '../../src/sidecar/index.js';
import { toolPath } from '../../src/testing/tools.js';
import { EDGEPLANE_BIN } from './support/server-process.js';
import { startWorkloadIdentityEnv, type WorkloadIdentityEnv } from './support/workload-identity-env.js';

const API = '/api/secret_management';
const PLAINTEXT = 'the launch code is 0000';
const BINARY = Buffer.from([0, 1, 2, 0x80, 0xfe, 0xff, 10, 13, 0]);
const VAULT_PASSWORD = 'vault-db-password-v2';

interface Run {
  readonly status: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Runs a command without blocking this process's event loop (the control plane and sidecars run in it). */
function run(command: string, args: readonly string[], input: Buffer | string = ''): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: Buffer.concat(out), stderr }));
    child.stdin.end(input);
  });
}

interface CurlAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** `curl -X POST <sidecar>/secret/unseal` with the JSON body on standard input; status and content type from `-w`. */
async function curlUnseal(sidecar: RunningSidecar, body: unknown, contentType = 'application/json'): Promise<CurlAnswer> {
  const marker = '\n--curl--';
  const answer = await run(toolPath('curl'), ['-sS', '-X', 'POST', '-H', `content-type: ${contentType}`, '--data-binary', '@-', '-w', `${marker}%{http_code} %{content_type}`, `${sidecar.urls[0] ?? ''}/secret/unseal`], JSON.stringify(body));
  assert.equal(answer.status, 0, `curl failed: ${answer.stderr}`);
  const text = answer.stdout.toString('utf8');
  const at = text.lastIndexOf(marker);
  const trailer = text.slice(at + marker.length);
  const space = trailer.indexOf(' ');
  return { status: Number(trailer.slice(0, space)), contentType: trailer.slice(space + 1), body: text.slice(0, at) };
}

describe('POST /secret/unseal end to end: sidecars of bound pods, the real control plane, secrets encrypted by the CLI, curl', () => {
  const cpLog = captureLogger();
  const sidecarLog = captureLogger();
  let env: WorkloadIdentityEnv;
  let vault: VaultTestServer;
  let vaultCa: PrivateCa;
  let onA: RunningSidecar;
  let onB: RunningSidecar;
  let globex: RunningSidecar;
  const locations: Record<string, string> = {};
  const secretsToHide: string[] = [PLAINTEXT, Buffer.from(PLAINTEXT).toString('base64'), BINARY.toString('base64'), VAULT_PASSWORD];

  /** `edgeplane secret …` as a process, against the control plane, as acme's admin. */
  const cli = async (args: string[], input?: Buffer): Promise<string> => {
    const caFile = join(env.tempDir('ca'), 'ca.crt');
    writeFileSync(caFile, env.h.ca);
    const connection = ['--server', env.h.url, '--token', env.tokens.acme, '--ca-file', caFile];
    const encrypting = args[1] === 'encrypt';
    const result = await run(process.execPath, [EDGEPLANE_BIN, ...args, ...(encrypting ? [] : connection)], input);
    assert.equal(result.status, 0, `edgeplane ${args.join(' ')}: ${result.stderr}`);
    return result.stdout.toString('utf8');
  };
  /** Encrypts offline with the CLI under acme's policy `namespace/name`, from the two documents it fetched. */
  const encrypt = async (plaintext: Buffer, namespace: string, name: string, base64 = false): Promise<string> => {
    const dir = env.tempDir('docs');
    writeFileSync(join(dir, 'key.json'), await cli(['secret', 'get-public-key']));
    writeFileSync(join(dir, 'policy.json'), await cli(['secret', 'get-policy-document', '-n', namespace, '--name', name]));
    const location = (await cli(['secret', 'encrypt', '--public-key', join(dir, 'key.json'), '--policy-document', join(dir, 'policy.json'), ...(base64 ? ['--base64'] : [])], plaintext)).trim();
    assert.match(location, /^string:\/\/\/[A-Za-z0-9+/]+=*$/);
    return location;
  };
  const policy = async (name: string, spec: Record<string, unknown>): Promise<void> => {
    const res = await env.h.call('POST', `${API}/namespaces/default/secret_policys`, { body: { metadata: { name }, spec } });
    assert.equal(res.status, 200, res.body);
  };

  before(async () => {
    env = await startWorkloadIdentityEnv({ logger: cpLog.logger });
    const [podA, podB] = env.acme;
    if (podA === undefined || podB === undefined) throw new Error('acme has two pods');
    assert.deepEqual([podA.site, podB.site], ['re-a', 're-b']);
    // Only the pod on site re-a (its certificate's labels), and only another service account.
    await policy('site-a-only', { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 're-a' }, spec: { action: 'ALLOW', client_selector: { expressions: ['svc.io/siteName=re-a'] } } }], decrypt_cache_timeout: '1m' });
    await policy('other-sa', { algo: 'DENY_OVERRIDES', rules: [{ metadata: { name: 'other' }, spec: { action: 'ALLOW', client_name_matcher: { exact_values: ['spiffe://acme/ns/default/sa/other'] } } }] });
    locations['siteA'] = await encrypt(Buffer.from(PLAINTEXT), 'default', 'site-a-only');
    locations['binary'] = await encrypt(BINARY, 'default', 'site-a-only', true);
    locations['otherSa'] = await encrypt(Buffer.from(PLAINTEXT), 'default', 'other-sa');

    // Vault over HTTPS with a private CA; the sidecar logs in with AppRole, whose secret_id is a blindfold secret.
    vaultCa = await createPrivateCa('e2e Vault CA');
    const serving = await vaultCa.issue({ commonName: 'vault.test', names: ['vault.test'], usage: 'server' });
    vault = await startVaultTestServer({ tls: { certificate: serving.certificate, key: serving.key } });
    vault.writeKv2('secret', 'db', { user: 'app', password: 'vault-db-password-v1' });
    vault.writeKv2('secret', 'db', { user: 'app', password: VAULT_PASSWORD });
    const role = vault.createAppRole('web', { tokenTtlSeconds: 600, paths: ['secret/*'] });
    secretsToHide.push(role.secretId, vault.rootToken);
    const access = async (name: string, secretIdLocation: string): Promise<void> => {
      const spec = {
        provider_name: 'vault',
        access_info: { server_endpoint: vault.endpoint, scheme: 'HTTPS', tls_config: { trusted_ca_url: `string:///${Buffer.from(vaultCa.certificate).toString('base64')}`, sni: 'vault.test' } },
        vault_auth_info: { app_role_auth: { role_id: role.roleId, secret_id: { blindfold_secret_info: { location: secretIdLocation } } } },
      };
      const res = await env.h.call('POST', '/api/config/namespaces/default/secret_management_accesss', { body: { metadata: { name }, spec } });
      assert.equal(res.status, 200, res.body);
    };
    await access('vault', await encrypt(Buffer.from(role.secretId), 'shared', BUILTIN_POLICY_NAME));
    await access('vault-site-a', await encrypt(Buffer.from(role.secretId), 'default', 'site-a-only'));

    [onA, onB, globex] = await Promise.all([env.sidecar(podA, { logger: sidecarLog.logger }), env.sidecar(podB, { logger: sidecarLog.logger }), env.sidecar(env.globex, { logger: sidecarLog.logger })]);
    await Promise.all([onA.whenReady(), onB.whenReady(), globex.whenReady()]);
  });

  after(async () => {
    await env?.close();
    await vault?.close();
    const logs = cpLog.text() + sidecarLog.text();
    assert.match(sidecarLog.text(), /unseal refused/);
    for (const secret of secretsToHide) assert.ok(!logs.includes(secret), `a secret is in the logs (${secret.slice(0, 6)}…)`);
    assert.ok(!/PRIVATE KEY/.test(logs), 'a private key is in the logs');
  });

  it('a sidecar of the pod the policy allows unseals the CLI-encrypted secret with curl: 200 text/plain, the Base64 of the plaintext', async () => {
    const answer = await curlUnseal(onA, { type: 'blindfold', location: locations['siteA'] });
    assert.deepEqual(answer, { status: 200, contentType: 'text/plain; charset=utf-8', body: Buffer.from(PLAINTEXT).toString('base64') });
    assert.deepEqual(await curlUnseal(onA, { type: 'blindfold', location: locations['siteA'] }), answer, 'again, from the cache');
    assert.equal(onA.unsealCacheStats()?.hits, 1);
  });

  it('a secret encrypted with --base64 comes back as the original bytes with encoding_type EncodingBase64', async () => {
    const answer = await curlUnseal(onA, { type: 'blindfold', location: locations['binary'], encoding_type: 'EncodingBase64' });
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(Buffer.from(answer.body, 'base64'), BINARY);
  });

  it('the sidecar of a pod the policy does not select gets 403 with the platform\'s message', async () => {
    assert.deepEqual(await curlUnseal(onB, { type: 'blindfold', location: locations['siteA'] }), { status: 403, contentType: 'text/plain; charset=utf-8', body: `${UNSEAL_MESSAGES.PolicyDenied}\n` });
  });

  it('a policy whose client_name_matcher names another service account denies both pods (403)', async () => {
    for (const sidecar of [onA, onB]) assert.deepEqual((await curlUnseal(sidecar, { type: 'blindfold', location: locations['otherSa'] })).status, 403);
  });

  it('another tenant\'s pod cannot unseal acme\'s secret (403)', async () => {
    assert.deepEqual(await curlUnseal(globex, { type: 'blindfold', location: locations['siteA'] }), { status: 403, contentType: 'text/plain; charset=utf-8', body: `${UNSEAL_MESSAGES.PolicyDenied}\n` });
  });

  it('a tampered blob is 400 with the platform\'s message', async () => {
    const jwe = Buffer.from((locations['siteA'] ?? '').slice('string:///'.length), 'base64');
    const parts = jwe.toString().split('.');
    // A byte in the middle of the ciphertext (fourth part).
    const at = (parts[0]?.length ?? 0) + (parts[1]?.length ?? 0) + (parts[2]?.length ?? 0) + 3 + 5;
    jwe[at] = (jwe[at] ?? 0) ^ 0x01;
    const answer = await curlUnseal(onA, { type: 'blindfold', location: `string:///${jwe.toString('base64')}` });
    assert.equal(answer.status, 400);
    assert.ok([`${UNSEAL_MESSAGES.Tampered}\n`, `${UNSEAL_MESSAGES.NotBlindfold}\n`].includes(answer.body), answer.body);
  });

  it('the sidecar wants content-type application/json (415) and a valid body (400)', async () => {
    const wrongType = await curlUnseal(onA, { type: 'blindfold', location: locations['siteA'] }, 'text/plain');
    assert.deepEqual([wrongType.status, wrongType.body], [415, 'content-type "text/plain" is not supported: POST /secret/unseal takes a JSON body with content-type: application/json\n']);
    const invalid = await curlUnseal(onA, { type: 'blindfold' });
    assert.deepEqual([invalid.status, invalid.body], [400, 'location: required, the blindfold secret as string:///<base64>\n']);
  });

  it('a Vault secret over HTTPS (private CA, SNI), logging in with AppRole whose secret_id is a blindfold secret: one key, a version, the whole secret', async () => {
    for (const sidecar of [onA, onB]) {
      const answer = await curlUnseal(sidecar, { type: 'vault', provider: 'vault', location: 'v1/secret/data/db', key: 'password' });
      assert.deepEqual(answer, { status: 200, contentType: 'text/plain; charset=utf-8', body: Buffer.from(VAULT_PASSWORD).toString('base64') });
    }
    const v1 = await curlUnseal(onA, { type: 'vault', provider: 'vault', location: 'v1/secret/data/db', key: 'password', version: '1' });
    assert.equal(Buffer.from(v1.body, 'base64').toString(), 'vault-db-password-v1');
    const whole = await curlUnseal(onA, { type: 'vault', provider: 'vault', location: 'v1/secret/data/db' });
    assert.deepEqual(JSON.parse(Buffer.from(whole.body, 'base64').toString()), { user: 'app', password: VAULT_PASSWORD });
    assert.equal(vault.requests.filter((r) => r.path === '/v1/auth/approle/login').length, 2, 'one login per sidecar, reused');
  });

  it('Vault errors: a missing key or version 404, a provider of another tenant 404, a provider whose secret_id the pod may not unseal 403', async () => {
    assert.deepEqual(await curlUnseal(onA, { type: 'vault', provider: 'vault', location: 'v1/secret/data/db', key: 'nope' }), {
      status: 404,
      contentType: 'text/plain; charset=utf-8',
      body: 'key "nope" does not exist in v1/secret/data/db (version 2)\n',
    });
    assert.equal((await curlUnseal(onA, { type: 'vault', provider: 'vault', location: 'v1/secret/data/db', version: '7' })).status, 404);
    const foreign = await curlUnseal(globex, { type: 'vault', provider: 'vault', location: 'v1/secret/data/db' });
    assert.deepEqual([foreign.status, foreign.body], [404, 'secret_management_access vault does not exist in namespace default or shared\n']);
    assert.equal((await curlUnseal(onA, { type: 'vault', provider: 'vault-site-a', location: 'v1/secret/data/db', key: 'user' })).body, Buffer.from('app').toString('base64'));
    const denied = await curlUnseal(onB, { type: 'vault', provider: 'vault-site-a', location: 'v1/secret/data/db', key: 'user' });
    assert.deepEqual([denied.status, denied.body], [403, `provider vault-site-a: ${UNSEAL_MESSAGES.PolicyDenied}\n`]);
  });
});
