import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../server/testing/config-harness.js';
import { blindfoldEncrypt } from '../../secrets/blindfold-encrypt.js';
import { encryptionTargetFrom } from '../../secrets/encryption-target.js';
import { SecretError, UNSEAL_MESSAGES } from '../../secrets/secret-error.js';
import { memoryKeySealer } from '../../secrets/testing/memory-key-sealer.js';
import { testPodIdentity } from '../../secrets/testing/pod-identities.js';
import { createPrivateCa, type PrivateCa } from '../../secrets/testing/private-ca.js';
import { parseConnectTo } from '../../client/connect-to.js';
import { TcpRelay } from '../../client/testing/tcp-relay.js';
import { testPodCertificateVerifier } from '../../secrets/testing/test-pod-verifier.js';
import type { IdentityMaterial } from '../identity-material.js';
import { HttpsPlatformSecrets } from './https-platform-secrets.js';
import { UnsealError } from './unseal-error.js';

const API = '/api/secret_management';

async function materialFrom(ca: PrivateCa, name: string): Promise<IdentityMaterial> {
  const pair = await ca.issue({ commonName: name, usage: 'client' });
  return { clientCertificate: pair.certificate, clientKey: pair.key, chain: ca.certificate, serverCertificate: '', serverKey: '', serverCa: '', clientCa: '', validity: { notBefore: 0, notAfter: 1 } };
}

interface AgentPools {
  readonly freeSockets: Record<string, unknown[] | undefined>;
  readonly sockets: Record<string, unknown[] | undefined>;
}

/** The agent requests use now (through the private field, for the test). */
function currentAgent(client: HttpsPlatformSecrets): AgentPools | undefined {
  return (client as unknown as { agents: { current?: { agent: AgentPools } } }).agents.current?.agent;
}

/** An agent's sockets (the current agent's by default): open connections of that identity. */
function sockets(client: HttpsPlatformSecrets, agent = currentAgent(client)): { free: number; busy: number } {
  const count = (pool: Record<string, unknown[] | undefined> | undefined): number => Object.values(pool ?? {}).reduce((n: number, list) => n + (list?.length ?? 0), 0);
  return { free: count(agent?.freeSockets), busy: count(agent?.sockets) };
}

describe('HttpsPlatformSecrets against the control plane over mTLS (test PodCertificateVerifier)', () => {
  const verifier = testPodCertificateVerifier();
  let h: ConfigHarness;
  let podCa: PrivateCa;
  let web: IdentityMaterial;
  let worker: IdentityMaterial;
  let stranger: IdentityMaterial;
  let client: HttpsPlatformSecrets;
  let location: string;

  before(async () => {
    h = await startConfigHarness({ controllers: [], secrets: { sealer: memoryKeySealer(), podCertificates: verifier } });
    podCa = await createPrivateCa('pod CA');
    web = await materialFrom(podCa, 'web');
    worker = await materialFrom(podCa, 'worker');
    stranger = await materialFrom(podCa, 'stranger');
    verifier.register(web.clientCertificate, testPodIdentity());
    verifier.register(worker.clientCertificate, testPodIdentity({ pod: 'worker-0', serviceAccount: 'worker', labels: { app: 'worker' } }));
    const created = await h.call('POST', `${API}/namespaces/default/secret_policys`, {
      body: { metadata: { name: 'web-only' }, spec: { algo: 'FIRST_MATCH', rules: [{ metadata: { name: 'web' }, spec: { action: 'ALLOW', client_selector: { expressions: ['app=web'] } } }], decrypt_cache_timeout: '15m' } },
    });
    assert.equal(created.status, 200, created.body);
    const key = (await h.call('GET', `${API}/get_public_key`)).json();
    const policy = (await h.call('GET', `${API}/namespaces/default/secret_policys/web-only/get_policy_document`)).json();
    location = await blindfoldEncrypt(Buffer.from('s3cret'), encryptionTargetFrom(key, policy));
    client = new HttpsPlatformSecrets({ server: `${h.url}/`, trustedCa: () => Promise.resolve(h.ca) });
  });
  after(async () => {
    client?.close();
    await h?.close();
  });

  it('HttpsPlatformSecrets unseals for the pod of the client certificate and returns the policy\'s cache timeout', async () => {
    const answer = await client.unseal(location, web);
    assert.deepEqual([answer.plaintext.toString(), answer.cacheTimeoutSeconds], ['s3cret', 900]);
  });

  it('HttpsPlatformSecrets keeps one keep-alive connection per identity and reuses it', async () => {
    for (let i = 0; i < 5; i++) await client.unseal(location, web);
    assert.deepEqual(sockets(client), { free: 1, busy: 0 });
    await Promise.all(Array.from({ length: 4 }, () => client.unseal(location, web)));
    assert.ok(sockets(client).free >= 1 && sockets(client).free <= 4);
  });

  it('HttpsPlatformSecrets presents a renewed identity on a new agent: the control plane sees the new certificate', async () => {
    await client.unseal(location, web);
    const before = currentAgent(client);
    assert.ok(sockets(client, before).free >= 1);
    await assert.rejects(client.unseal(location, worker), (error: unknown) => error instanceof SecretError && error.code === 'PolicyDenied' && error.message === UNSEAL_MESSAGES.PolicyDenied);
    assert.notEqual(currentAgent(client), before);
    assert.deepEqual(sockets(client, before), { free: 0, busy: 0 }, 'the replaced identity\'s connection is closed');
    assert.equal(sockets(client).busy, 0);
    assert.equal((await client.unseal(location, web)).plaintext.toString(), 's3cret', 'and back');
  });

  it('HttpsPlatformSecrets turns the control plane\'s errors into SecretErrors with its code and message', async () => {
    await assert.rejects(client.unseal('string:///AAAA', web), (error: unknown) => error instanceof SecretError && error.code === 'NotBlindfold' && error.httpStatus === 400);
    await assert.rejects(client.unseal(location, stranger), (error: unknown) => error instanceof SecretError && error.code === 'Unauthenticated' && /pod client certificate is required/.test(error.message));
    await assert.rejects(client.provider('nope', web), (error: unknown) => error instanceof SecretError && error.code === 'ProviderNotFound' && error.httpStatus === 404);
  });

  it('HttpsPlatformSecrets reads a provider with its credentials resolved for the pod', async () => {
    const created = await h.call('POST', '/api/config/namespaces/default/secret_management_accesss', {
      body: { metadata: { name: 'vault' }, spec: { provider_name: 'vault', access_info: { server_endpoint: '127.0.0.1:8200', scheme: 'HTTP' }, vault_auth_info: { token: { clear_secret_info: { url: `string:///${Buffer.from('hvs.clear').toString('base64')}` } } } } },
    });
    assert.equal(created.status, 200, created.body);
    const provider = await client.provider('vault', web);
    assert.deepEqual([provider.name, provider.server_endpoint, provider.scheme, provider.auth, provider.cache_timeout_seconds], ['vault', '127.0.0.1:8200', 'HTTP', { type: 'token', token: 'hvs.clear' }, 0]);
  });

  it('HttpsPlatformSecrets with connectTo dials the relay and still checks the server URL\'s host', async () => {
    const relay = await TcpRelay.start({ host: '127.0.0.1', port: Number(new URL(h.url).port) });
    const connectTo = parseConnectTo(relay.address);
    const relayed = new HttpsPlatformSecrets({ server: 'https://127.0.0.1:1', trustedCa: () => Promise.resolve(h.ca), connectTo });
    const elsewhere = new HttpsPlatformSecrets({ server: 'https://10.1.2.3:6443', trustedCa: () => Promise.resolve(h.ca), connectTo });
    try {
      for (let i = 0; i < 3; i++) assert.equal((await relayed.unseal(location, web)).plaintext.toString(), 's3cret');
      assert.equal(relay.connections, 1, 'one keep-alive connection, through the relay');
      await assert.rejects(elsewhere.unseal(location, web), (error: unknown) => error instanceof UnsealError && /10\.1\.2\.3/.test(error.message) && /altnames|not in the cert/i.test(error.message));
    } finally {
      relayed.close();
      elsewhere.close();
      await relay.close();
    }
  });

  it('HttpsPlatformSecrets: an unreachable control plane, or one whose certificate is not trusted, is an internal error saying why', async () => {
    const closed = new HttpsPlatformSecrets({ server: 'https://127.0.0.1:1', trustedCa: () => Promise.resolve(h.ca), timeoutMs: 2000 });
    await assert.rejects(closed.unseal(location, web), (error: unknown) => error instanceof UnsealError && error.code === 'Internal' && /ECONNREFUSED/.test(error.message));
    closed.close();
    const untrusting = new HttpsPlatformSecrets({ server: h.url, trustedCa: () => Promise.resolve(podCa.certificate) });
    await assert.rejects(untrusting.unseal(location, web), (error: unknown) => error instanceof UnsealError && /certificate/i.test(error.message));
    untrusting.close();
    const noCa = new HttpsPlatformSecrets({ server: h.url, trustedCa: () => Promise.reject(new Error('the token carries no ca_pin')) });
    await assert.rejects(noCa.unseal(location, web), (error: unknown) => error instanceof UnsealError && /no CA to trust for the control plane: the token carries no ca_pin/.test(error.message));
  });
});

describe('HttpsPlatformSecrets and keep-alive sockets the server closes', () => {
  let server: Server;
  let ca: PrivateCa;
  let requests = 0;
  let url: string;

  before(async () => {
    ca = await createPrivateCa('cp CA');
    const serving = await ca.issue({ commonName: 'localhost', names: ['127.0.0.1'], usage: 'server' });
    server = createServer({ cert: serving.certificate, key: serving.key, requestCert: true, rejectUnauthorized: false }, (req, res) => {
      requests++;
      // The second request on a connection: the server drops the connection without answering (as a server closing an idle socket does).
      const socket = req.socket as typeof req.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served === 2) return void socket.destroy();
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { plaintext: Buffer.from('ok').toString('base64'), decrypt_cache_timeout: null, cache_timeout_seconds: 0 } })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('HttpsPlatformSecrets sends a request again once when its reused keep-alive socket was closed', async () => {
    const client = new HttpsPlatformSecrets({ server: url, trustedCa: () => Promise.resolve(ca.certificate) });
    const pod = await materialFrom(ca, 'pod');
    assert.equal((await client.unseal('string:///x', pod)).plaintext.toString(), 'ok');
    assert.equal((await client.unseal('string:///x', pod)).plaintext.toString(), 'ok', 'answered on a new connection');
    assert.equal(requests, 3);
    client.close();
  });
});
