import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { createServer, request, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'light-my-request';
import { createLogger } from '../observability/logger.js';
import type { IdentityMaterial } from './identity-material.js';
import { buildSidecarApp } from './sidecar-http-app.js';
import type { SidecarState } from './sidecar-state.js';

const material: IdentityMaterial = {
  serverKey: '-----BEGIN PRIVATE KEY-----\nSERVERKEY\n-----END PRIVATE KEY-----\n',
  serverCertificate: '-----BEGIN CERTIFICATE-----\nSERVERLEAF\n-----END CERTIFICATE-----\n',
  clientKey: '-----BEGIN PRIVATE KEY-----\nCLIENTKEY\n-----END PRIVATE KEY-----\n',
  clientCertificate: '-----BEGIN CERTIFICATE-----\nCLIENTLEAF\n-----END CERTIFICATE-----\n',
  chain: '-----BEGIN CERTIFICATE-----\nINTERMEDIATE\n-----END CERTIFICATE-----\n',
  serverCa: '-----BEGIN CERTIFICATE-----\nSERVERCA\n-----END CERTIFICATE-----\n',
  clientCa: '-----BEGIN CERTIFICATE-----\nCLIENTCA\n-----END CERTIFICATE-----\n',
  validity: { notBefore: 0, notAfter: 1 },
};

const identity = { notBefore: 0, notAfter: 1 };
const STATES: Record<SidecarState['kind'], SidecarState> = {
  INITIALIZING: { kind: 'INITIALIZING', since: 0, failures: 0 },
  READY: { kind: 'READY', identity, issuedAt: 0, inExpiryWindow: false, failures: 0 },
  DEGRADED: { kind: 'DEGRADED', identity, issuedAt: 0, failures: 1, lastFailureAt: 0, lastError: 'x' },
  HALTED: { kind: 'HALTED', since: 0, reason: 'IDENTITY_EXPIRED' },
};

const PEM_ANSWERS: Record<string, string> = {
  '/creds/pki/server/key': material.serverKey,
  '/creds/pki/server/cert': material.serverCertificate + material.chain,
  '/creds/pki/server/cert-only': material.serverCertificate,
  '/creds/pki/client/key': material.clientKey,
  '/creds/pki/client/cert': material.clientCertificate + material.chain,
  '/creds/pki/client/cert-only': material.clientCertificate,
  '/trust/pki/server_ca': material.serverCa,
  '/trust/pki/client_ca': material.clientCa,
};

describe('sidecar HTTP API', () => {
  let state: SidecarState = STATES.INITIALIZING;
  let app: RequestListener;
  before(() => {
    const serving = (): boolean => state.kind === 'READY' || state.kind === 'DEGRADED';
    app = buildSidecarApp({ view: { current: () => state, identity: () => (serving() ? material : undefined) }, logger: createLogger({ level: 'silent' }) });
  });

  for (const kind of ['INITIALIZING', 'READY', 'DEGRADED', 'HALTED'] as const) {
    it(`GET /status answers 200 text/plain "${kind}" in ${kind}`, async () => {
      state = STATES[kind];
      const res = await inject(app, { method: 'GET', url: '/status' });
      assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [200, 'text/plain; charset=utf-8', kind]);
    });
  }

  for (const kind of ['READY', 'DEGRADED'] as const) {
    it(`credentials and CA bundles are served as PEM in ${kind}`, async () => {
      state = STATES[kind];
      for (const [url, body] of Object.entries(PEM_ANSWERS)) {
        const res = await inject(app, { method: 'GET', url });
        assert.deepEqual([url, res.statusCode, res.headers['content-type'], res.body], [url, 200, 'application/x-pem-file', body]);
        assert.equal(res.headers['cache-control'], 'no-store');
      }
    });
  }

  for (const kind of ['INITIALIZING', 'HALTED'] as const) {
    it(`credentials and CA bundles answer 503 with the state in ${kind}`, async () => {
      state = STATES[kind];
      for (const url of Object.keys(PEM_ANSWERS)) {
        const res = await inject(app, { method: 'GET', url });
        assert.equal(res.statusCode, 503, url);
        assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
        assert.equal(res.body, `edgeplane sidecar is still not ready, current status => ${kind}, please retry after some time\n`);
      }
    });
  }

  it('unknown bundle and credential names answer 404 listing the valid ones, in any state', async () => {
    for (const kind of ['INITIALIZING', 'READY'] as const) {
      state = STATES[kind];
      const cases: Array<[string, string]> = [
        ['/trust/pki/root_ca', 'unknown CA bundle "root_ca": valid names are server_ca, client_ca\n'],
        ['/creds/pki/admin/key', 'unknown credential "admin": valid names are server, client\n'],
        ['/creds/pki/server/pfx', 'unknown form "pfx" of the server credential: valid forms are key, cert, cert-only\n'],
      ];
      for (const [url, message] of cases) {
        const res = await inject(app, { method: 'GET', url });
        assert.deepEqual([res.statusCode, res.headers['content-type'], res.body], [404, 'text/plain; charset=utf-8', message]);
      }
    }
  });

  it('a wrong method on an endpoint answers 405 with Allow', async () => {
    state = STATES.READY;
    for (const [method, url] of [['POST', '/status'], ['DELETE', '/creds/pki/server/key'], ['PUT', '/trust/pki/server_ca'], ['POST', '/trust/pki/nope']] as const) {
      const res = await inject(app, { method, url });
      assert.equal(res.statusCode, 405, `${method} ${url}`);
      assert.equal(res.headers['allow'], 'GET, HEAD');
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(res.body, `method ${method} is not allowed on ${url}: allowed GET, HEAD\n`);
    }
  });

  it('HEAD is answered like GET without a body', async () => {
    state = STATES.READY;
    // Over a real socket: what a client receives (light-my-request's inject does not model HEAD the same in every version).
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await new Promise<{ status: number | undefined; type: string | undefined; body: string }>((resolve, reject) => {
        request({ host: '127.0.0.1', port, method: 'HEAD', path: '/creds/pki/client/cert' }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode, type: response.headers['content-type'], body }));
        })
          .on('error', reject)
          .end();
      });
      assert.deepEqual([res.status, res.type, res.body], [200, 'application/x-pem-file', '']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('a Host that is not a loopback name answers 403 on every path (DNS-rebinding guard)', async () => {
    state = STATES.READY;
    for (const url of ['/status', '/creds/pki/client/key', '/nope']) {
      const res = await inject(app, { method: 'GET', url, headers: { host: 'evil.example:8070' } });
      assert.equal(res.statusCode, 403, url);
      assert.equal(res.body, 'the edgeplane sidecar answers only requests for a loopback host (127.0.0.1, localhost, [::1]), not "evil.example:8070"\n');
    }
    assert.equal((await inject(app, { method: 'GET', url: '/status', headers: { host: '127.0.0.1:8070' } })).statusCode, 200);
  });

  it('unknown paths answer 404 listing the endpoints', async () => {
    for (const url of ['/', '/creds/pki/server', '/creds/pki/server/key/extra', '/secret/unseal', '/status/']) {
      const res = await inject(app, { method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(
        res.body,
        `404 page not found: ${url}; the endpoints are GET /status, GET /creds/pki/{server|client}/{key|cert|cert-only}, GET /trust/pki/{server_ca|client_ca}\n`,
      );
    }
  });

  it('an endpoint added to the list is served, and its path allows only its method', async () => {
    const extra = buildSidecarApp({
      view: { current: () => STATES.READY, identity: () => material },
      logger: createLogger({ level: 'silent' }),
      endpoints: [{ method: 'POST', url: '/secret/unseal', display: '/secret/unseal', handle: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'c2VjcmV0' }) }],
    });
    assert.equal((await inject(extra, { method: 'POST', url: '/secret/unseal' })).body, 'c2VjcmV0');
    const wrong = await inject(extra, { method: 'GET', url: '/secret/unseal' });
    assert.deepEqual([wrong.statusCode, wrong.headers['allow']], [405, 'POST']);
  });
});
