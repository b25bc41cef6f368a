import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { x509 } from '../common/x509.js';
import { createLogger } from '../observability/logger.js';
import { fakeTimers } from '../common/testing/fake-timers.js';
import { startSidecar } from './start-sidecar.js';
import { IdentityTestServer } from './testing/identity-test-server.js';

function get(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    })
      .on('error', reject)
      .end();
  });
}

/** A logger writing every line (debug and up) into `lines`. */
function capturingLogger(lines: string[]) {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return createLogger({ level: 'debug', destination: stream });
}

describe('startSidecar', () => {
  let server: IdentityTestServer;
  let dir: string;
  before(async () => {
    server = await IdentityTestServer.start();
    dir = mkdtempSync(join(tmpdir(), 'start-sidecar-'));
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('startSidecar serves INITIALIZING until the identity service answers, then READY with files and credentials', async () => {
    const token = await server.mintToken();
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, token);
    const identityDir = join(dir, 'identity');
    const lines: string[] = [];
    server.available = false;
    const sidecar = await startSidecar({
      server: server.url,
      tokenFile,
      identityDir,
      listen: ['127.0.0.1:0'],
      policy: { backoffBaseMs: 20, backoffMaxMs: 50 },
      logger: capturingLogger(lines),
    });
    try {
      const url = sidecar.urls[0]!;
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(await get(`${url}/status`), { status: 200, type: 'text/plain; charset=utf-8', body: 'INITIALIZING' });
      assert.equal((await get(`${url}/creds/pki/client/key`)).status, 503);
      server.available = true;
      await sidecar.whenReady();
      assert.equal(sidecar.state(), 'READY');
      assert.equal((await get(`${url}/status`)).body, 'READY');

      const key = await get(`${url}/creds/pki/server/key`);
      assert.deepEqual([key.status, key.type], [200, 'application/x-pem-file']);
      assert.equal(key.body, readFileSync(join(identityDir, 'server.key'), 'utf8'));
      assert.equal((await get(`${url}/creds/pki/client/cert`)).body, readFileSync(join(identityDir, 'client.crt'), 'utf8'));
      assert.equal((await get(`${url}/trust/pki/client_ca`)).body, readFileSync(join(identityDir, 'client_ca.crt'), 'utf8'));
      assert.equal(statSync(join(identityDir, 'client.key')).mode & 0o777, 0o600);

      const logged = lines.join('\n');
      assert.match(logged, /"msg":"sidecar READY"/);
      for (const secret of [token, 'PRIVATE KEY', key.body.split('\n')[1]!]) assert.ok(!logged.includes(secret), 'logs hold no token and no key');
    } finally {
      await sidecar.stop();
    }
    await assert.rejects(get(`${sidecar.urls[0]!}/status`), /ECONNREFUSED/, 'stop() closes the servers');
  });

  it('startSidecar identity files make a working mutual TLS pair with standard clients', async () => {
    const identityDir = join(dir, 'identity');
    const read = (name: string): string => readFileSync(join(identityDir, name), 'utf8');
    const tls = createServer({ key: read('server.key'), cert: read('server.crt'), ca: read('client_ca.crt'), requestCert: true, rejectUnauthorized: true }, (req, res) => {
      res.end(`hello ${String((req.socket as TLSSocket).getPeerCertificate().subject?.CN)}`);
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const port = (tls.address() as { port: number }).port;
    try {
      const body = await new Promise<string>((resolve, reject) => {
        httpsRequest(`https://127.0.0.1:${port}/`, { key: read('client.key'), cert: read('client.crt'), ca: read('server_ca.crt') }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end();
      });
      assert.equal(body, 'hello web-0');
    } finally {
      tls.close();
    }
  });

  it('startSidecar resumes READY from the files of an earlier run, and halts when bootstrap never succeeds', async () => {
    const tokenFile = join(dir, 'token');
    const resumed = await startSidecar({ server: server.url, tokenFile, identityDir: join(dir, 'identity'), listen: ['127.0.0.1:0'] });
    assert.equal(resumed.state(), 'READY');
    await resumed.stop();

    server.available = false;
    const halting = await startSidecar({ server: server.url, tokenFile, identityDir: join(dir, 'empty'), listen: ['127.0.0.1:0'], policy: { retryBudgetMs: 200, backoffBaseMs: 20, backoffMaxMs: 40 } });
    try {
      await assert.rejects(halting.whenReady(), /the sidecar halted \(RETRY_BUDGET_EXHAUSTED\): POST .* answered 503/);
      assert.equal((await get(`${halting.urls[0]!}/status`)).body, 'HALTED');
      const creds = await get(`${halting.urls[0]!}/creds/pki/server/cert`);
      assert.deepEqual([creds.status, creds.body], [503, 'edgeplane sidecar is still not ready, current status => HALTED, please retry after some time\n']);
    } finally {
      server.available = true;
      await halting.stop();
    }
  });

  it('startSidecar renews a resumed identity over mTLS when its time comes, trusting the pin of an expired token', async () => {
    const identityDir = join(dir, 'identity');
    const tokenFile = join(dir, 'expired-token');
    writeFileSync(tokenFile, await server.mintToken({ expiresInSeconds: -60 }));
    const before = readFileSync(join(identityDir, 'client.crt'), 'utf8');
    const timers = fakeTimers(Date.now());
    const sidecar = await startSidecar({ server: server.url, tokenFile, identityDir, listen: ['127.0.0.1:0'], timers, random: () => 0.5 });
    try {
      assert.equal(sidecar.state(), 'READY');
      const renewed = new Promise<void>((resolve) => sidecar.onStateChange((state, previous) => state.kind === 'READY' && previous.kind === 'READY' && resolve()));
      const requests = server.requests.length;
      timers.advance(31 * 60_000);
      await renewed;
      const made = server.requests.slice(requests).filter((r) => r.method === 'POST');
      assert.deepEqual(made.map((r) => [r.path, r.bearer, r.clientSerial]), [['/api/identity/v1/certificates/renew', false, new x509.X509Certificate(before).serialNumber]]);
      assert.notEqual(readFileSync(join(identityDir, 'client.crt'), 'utf8'), before);
    } finally {
      await sidecar.stop();
    }
  });

  it('startSidecar keeps --state-file: INITIALIZING, READY, and HALTED with its reason', async () => {
    const tokenFile = join(dir, 'state-token');
    writeFileSync(tokenFile, await server.mintToken());
    const stateFile = join(dir, 'state', 'sidecar.json');
    const state = (): { state: string; since: string; reason?: string } => JSON.parse(readFileSync(stateFile, 'utf8')) as { state: string; since: string };
    server.available = false;
    const started = Date.now();
    const sidecar = await startSidecar({ server: server.url, tokenFile, identityDir: join(dir, 'state-identity'), stateFile, listen: ['127.0.0.1:0'], policy: { backoffBaseMs: 20, backoffMaxMs: 50 } });
    try {
      for (let i = 0; i < 100; i++) {
        try {
          if (state().state === 'INITIALIZING') break;
        } catch {
          // not written yet
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const initializing = state();
      assert.equal(initializing.state, 'INITIALIZING');
      assert.ok(Date.parse(initializing.since) >= started - 1000);
      server.available = true;
      await sidecar.whenReady();
    } finally {
      await sidecar.stop();
    }
    assert.deepEqual(Object.keys(state()).sort(), ['since', 'state']);
    assert.equal(state().state, 'READY');
    assert.equal(statSync(stateFile).mode & 0o777, 0o600);

    server.available = false;
    const halting = await startSidecar({ server: server.url, tokenFile, identityDir: join(dir, 'state-empty'), stateFile, listen: ['127.0.0.1:0'], policy: { retryBudgetMs: 1500, backoffBaseMs: 20, backoffMaxMs: 40 } });
    try {
      await assert.rejects(halting.whenReady(), /halted/);
    } finally {
      server.available = true;
      await halting.stop();
    }
    assert.equal(state().state, 'HALTED');
    assert.match(state().reason ?? '', /^RETRY_BUDGET_EXHAUSTED: POST https:\/\/127\.0\.0\.1:\d+\/api\/identity\/v1\/certificates answered 503: ServiceUnavailable/);
    assert.deepEqual(readdirSync(join(dir, 'state')), ['sidecar.json'], 'no temporary file left');
  });

  it('startSidecar works in an identity folder it did not make, holding what an earlier run left', async () => {
    const tokenFile = join(dir, 'foreign-token');
    writeFileSync(tokenFile, await server.mintToken());
    // A pod's tmpfs as mounted for the sidecar: mode 1777, a crashed run's temporary files, an unusable certificate, a file of someone else.
    const identityDir = join(dir, 'foreign');
    mkdirSync(identityDir);
    chmodSync(identityDir, 0o1777);
    for (const name of ['server.key.4242.tmp', 'client.crt.7.tmp']) writeFileSync(join(identityDir, name), 'half', { mode: 0o600 });
    writeFileSync(join(identityDir, 'client.crt'), 'not a certificate');
    writeFileSync(join(identityDir, 'NOTES'), 'kept');
    const lines: string[] = [];
    const sidecar = await startSidecar({ server: server.url, tokenFile, identityDir, listen: ['127.0.0.1:0'], logger: capturingLogger(lines) });
    try {
      await sidecar.whenReady();
    } finally {
      await sidecar.stop();
    }
    assert.deepEqual(readdirSync(identityDir).sort(), ['NOTES', 'client.crt', 'client.key', 'client_ca.crt', 'server.crt', 'server.key', 'server_ca.crt']);
    assert.equal(statSync(identityDir).mode & 0o7777, 0o1777, 'the folder keeps its mode');
    assert.equal(statSync(join(identityDir, 'server.key')).mode & 0o777, 0o600);
    assert.match(readFileSync(join(identityDir, 'client.crt'), 'utf8'), /^-----BEGIN CERTIFICATE-----/);
    const logged = lines.join('\n');
    assert.match(logged, /"files":\["(server\.key\.4242\.tmp","client\.crt\.7\.tmp|client\.crt\.7\.tmp","server\.key\.4242\.tmp)"\],"msg":"removed temporary files an earlier run left"/);
    assert.match(logged, /the identity in .* is unusable/);
  });

  it('startSidecar refuses a non-loopback listen address before doing anything', async () => {
    await assert.rejects(startSidecar({ server: server.url, tokenFile: join(dir, 'token'), identityDir: join(dir, 'never'), listen: ['0.0.0.0:0'] }), /--listen 0\.0\.0\.0:0: the sidecar serves private keys without authentication/);
    assert.throws(() => statSync(join(dir, 'never')), /ENOENT/);
  });
});
