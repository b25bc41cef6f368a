import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateEcKeyPair, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../common/x509.js';
import { acceptIdentityBundle } from './accept-identity-bundle.js';
import { decodeBootstrapToken } from './bootstrap-token.js';
import { HttpsIdentityIssuer } from './https-identity-issuer.js';
import type { IdentityMaterial } from './identity-material.js';
import { createIdentityRequest } from './identity-request.js';
import { IdentityTestServer } from './testing/identity-test-server.js';
import { parseConnectTo } from '../client/connect-to.js';
import { TcpRelay } from '../client/testing/tcp-relay.js';

const BOOTSTRAP = '/api/identity/v1/certificates';
const RENEW = '/api/identity/v1/certificates/renew';
const CA = '/api/sites/v1/ca';
const signal = new AbortController().signal;

describe('identity service client', () => {
  let server: IdentityTestServer;
  let dir: string;
  let tokenFile: string;
  let bootstrapped: IdentityMaterial;
  before(async () => {
    server = await IdentityTestServer.start();
    dir = mkdtempSync(join(tmpdir(), 'sidecar-client-'));
    tokenFile = join(dir, 'token');
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bootstrap = async (issuer: HttpsIdentityIssuer): Promise<IdentityMaterial> => {
    const request = await createIdentityRequest();
    return acceptIdentityBundle(request, await issuer.bootstrap(request.csrs, signal), Date.now());
  };

  it('client bootstraps with the Bearer token, trusting the fetched CA because it matches ca_pin', async () => {
    writeFileSync(tokenFile, (await server.mintToken()) + '\n');
    const before = server.requests.length;
    bootstrapped = await bootstrap(new HttpsIdentityIssuer({ server: server.url, tokenFile }));
    assert.deepEqual(server.requests.slice(before).map((r) => [r.method, r.path, r.bearer]), [['GET', CA, false], ['POST', BOOTSTRAP, true]]);
    assert.ok(bootstrapped.validity.notAfter > Date.now());
  });

  it('client renews over mTLS with the current client certificate, without the token and with new keys', async () => {
    const issuer = new HttpsIdentityIssuer({ server: server.url, tokenFile });
    await bootstrap(issuer);
    rmSync(tokenFile);
    const before = server.requests.length;
    const request = await createIdentityRequest();
    const bundle = await issuer.renew(request.csrs, { certificate: bootstrapped.clientCertificate + bootstrapped.chain, key: bootstrapped.clientKey }, signal);
    const renewed = acceptIdentityBundle(request, bundle, Date.now());
    const recorded = server.requests.slice(before);
    assert.deepEqual(recorded.map((r) => [r.path, r.bearer]), [[RENEW, false]]);
    assert.equal(recorded[0]?.clientSerial, new x509.X509Certificate(bootstrapped.clientCertificate).serialNumber, 'the TLS client certificate was the current one');
    assert.notEqual(renewed.clientKey, bootstrapped.clientKey);
  });

  it('client renewal with a certificate the identity CA did not issue is refused with the server message', async () => {
    writeFileSync(tokenFile, await server.mintToken());
    const keys = await generateEcKeyPair();
    const stranger = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(), name: 'CN=stranger', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 60_000),
      signingAlgorithm: SIGN_ECDSA_SHA256, keys, extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
    });
    const request = await createIdentityRequest();
    await assert.rejects(
      new HttpsIdentityIssuer({ server: server.url, tokenFile }).renew(request.csrs, { certificate: stranger.toString('pem'), key: await privateKeyToPem(keys.privateKey) }, signal),
      new RegExp(`POST ${server.url}${RENEW} answered 401: Unauthorized: renewal needs the client certificate of a pod identity`),
    );
  });

  it('client refuses a CA whose pin does not match the token, and sends nothing to it', async () => {
    writeFileSync(tokenFile, await server.mintToken({ caPin: 'sha256:' + 'ab'.repeat(32) }));
    const before = server.requests.length;
    await assert.rejects(bootstrap(new HttpsIdentityIssuer({ server: server.url, tokenFile })), /the server's CA does not match the bootstrap token's ca_pin: its certificate has sha256:[0-9a-f]{64}, the token pins sha256:(ab){32}; refusing to trust it/);
    assert.deepEqual(server.requests.slice(before).map((r) => r.path), [CA]);
  });

  it('client trusts --ca-file instead of fetching, and needs one when the token has no pin', async () => {
    writeFileSync(tokenFile, await server.mintToken({ caPin: null }));
    await assert.rejects(bootstrap(new HttpsIdentityIssuer({ server: server.url, tokenFile })), /the bootstrap token carries no ca_pin .*; pass --ca-file/);
    const caFile = join(dir, 'ca.crt');
    writeFileSync(caFile, server.apiCa);
    const before = server.requests.length;
    await bootstrap(new HttpsIdentityIssuer({ server: server.url, tokenFile, caFile }));
    assert.deepEqual(server.requests.slice(before).map((r) => r.path), [BOOTSTRAP]);
    const wrongCa = join(dir, 'wrong-ca.crt');
    writeFileSync(wrongCa, server.identityCa.trustPem);
    await assert.rejects(bootstrap(new HttpsIdentityIssuer({ server: server.url, tokenFile, caFile: wrongCa })), /failed: .*(certificate|self.signed|issuer)/i);
  });

  it('client reads the token file at each attempt', async () => {
    writeFileSync(tokenFile, await server.mintToken({ expiresInSeconds: -1 }));
    const issuer = new HttpsIdentityIssuer({ server: server.url, tokenFile });
    await assert.rejects(bootstrap(issuer), /answered 401: Unauthorized: the bootstrap token is invalid or expired/);
    writeFileSync(tokenFile, await server.mintToken());
    await bootstrap(issuer);
    rmSync(tokenFile);
    await assert.rejects(bootstrap(issuer), new RegExp(`cannot read the bootstrap token file ${tokenFile}: ENOENT`));
  });

  it('client reports the Status message of a failure, and an aborted request', async () => {
    writeFileSync(tokenFile, await server.mintToken());
    const issuer = new HttpsIdentityIssuer({ server: server.url, tokenFile });
    server.available = false;
    try {
      await assert.rejects(bootstrap(issuer), /answered 503: ServiceUnavailable: the identity service is not available/);
    } finally {
      server.available = true;
    }
    const request = await createIdentityRequest();
    await assert.rejects(issuer.bootstrap(request.csrs, AbortSignal.abort()), /failed: .*abort/i);
  });

  it('bootstrap tokens are decoded without verification, and errors never echo them', async () => {
    const token = await server.mintToken();
    const decoded = decodeBootstrapToken(` ${token}\n`);
    assert.equal(decoded.raw, token);
    assert.equal(decoded.subject, 'system:pod:default:vk:web-0');
    assert.match(decoded.caPin ?? '', /^sha256:[0-9a-f]{64}$/);
    assert.ok(decoded.expiresAt !== undefined && decoded.expiresAt > Date.now());
    assert.throws(() => decodeBootstrapToken('not-a-token'), (error: Error) => /is not a JWT/.test(error.message) && !error.message.includes('not-a-token'));
    const [header, , signature] = token.split('.');
    const badPin = `${header}.${Buffer.from(JSON.stringify({ ca_pin: 'md5:1' })).toString('base64url')}.${signature}`;
    assert.throws(() => decodeBootstrapToken(badPin), /"ca_pin" is not sha256:<64 hex digits>/);
    for (const payload of ['[1]', '"text"', 'null', '{"sub":']) {
      assert.throws(() => decodeBootstrapToken(`${header}.${Buffer.from(payload).toString('base64url')}.${signature}`), /is not a JWT/, payload);
    }
    assert.throws(() => decodeBootstrapToken(`${header}.${token.split('.')[1]}.${signature}.x.y`), /is not a JWT/, 'five parts (a JWE)');
    assert.throws(() => decodeBootstrapToken(`${header}.e30+.${signature}`), /is not a JWT/, 'not base64url');
  });
});

describe('identity service client through a relay (--connect-to)', () => {
  let server: IdentityTestServer;
  let relay: TcpRelay;
  let dir: string;
  let tokenFile: string;
  before(async () => {
    server = await IdentityTestServer.start({ names: ['cp.test', '10.77.0.1'] });
    relay = await TcpRelay.start({ host: '127.0.0.1', port: Number(new URL(server.url).port) });
    dir = mkdtempSync(join(tmpdir(), 'sidecar-relay-'));
    tokenFile = join(dir, 'token');
  });
  after(async () => {
    await relay.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const bootstrap = async (issuer: HttpsIdentityIssuer): Promise<IdentityMaterial> => {
    const request = await createIdentityRequest();
    return acceptIdentityBundle(request, await issuer.bootstrap(request.csrs, signal), Date.now());
  };

  for (const host of ['cp.test', '10.77.0.1']) {
    it(`relayed client fetches the pinned CA, bootstraps and renews through the relay for https://${host}`, async () => {
      writeFileSync(tokenFile, await server.mintToken());
      const issuer = new HttpsIdentityIssuer({ server: `https://${host}:6443`, tokenFile, connectTo: parseConnectTo(relay.address) });
      const [requests, connections] = [server.requests.length, relay.connections];
      const material = await bootstrap(issuer);
      const request = await createIdentityRequest();
      acceptIdentityBundle(request, await issuer.renew(request.csrs, { certificate: material.clientCertificate + material.chain, key: material.clientKey }, signal), Date.now());
      assert.deepEqual(server.requests.slice(requests).map((r) => r.path), [CA, BOOTSTRAP, RENEW]);
      assert.equal(relay.connections - connections, 3, 'every request went through the relay');
    });
  }

  it('relayed client refuses a server whose certificate does not name the URL host, and sends no token', async () => {
    writeFileSync(tokenFile, await server.mintToken());
    const requests = server.requests.length;
    const issuer = new HttpsIdentityIssuer({ server: 'https://other.test:6443', tokenFile, connectTo: parseConnectTo(relay.address) });
    await assert.rejects(bootstrap(issuer), /POST https:\/\/other\.test:6443\/api\/identity\/v1\/certificates failed: .*other\.test/);
    assert.deepEqual(server.requests.slice(requests).map((r) => r.path), [CA], 'the CA is fetched unverified (it is pinned), the bootstrap never reaches the server');
  });
});
