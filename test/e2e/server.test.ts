import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { ensurePlatformPki } from '../../src/identity/platform-ca.js';
import { EtcdTestServer } from '../../src/store/testing/etcd-server.js';
import { EDGEPLANE_BIN, httpsGet, httpsRequest, startServer } from './support/server-process.js';

describe('edgeplane server (real process over HTTPS)', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-e2e-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('serves health, version and metrics with its generated CA, and stops cleanly on SIGINT', async () => {
    const home = join(root, 'a');
    const server = await startServer(home);
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    try {
      for (const path of ['/healthz', '/livez', '/readyz']) {
        const res = await httpsGet(`${server.url}${path}`, ca);
        assert.deepEqual([res.status, res.body], [200, 'ok'], path);
        assert.match(String(res.headers['content-type']), /^text\/plain/);
      }
      const verbose = await httpsGet(`${server.url}/readyz?verbose`, ca);
      assert.equal(verbose.body, '[+]ping ok\n[+]sqlite ok\n[+]store-writable ok\n[+]shutdown ok\nreadyz check passed\n');
      const excluded = await httpsGet(`${server.url}/readyz?verbose&exclude=sqlite`, ca);
      assert.match(excluded.body, /\[\+\]sqlite excluded: ok/);
      assert.equal((await httpsGet(`${server.url}/readyz/sqlite`, ca)).body, 'ok');
      assert.equal((await httpsGet(`${server.url}/readyz/nope`, ca)).status, 404);
      const version = JSON.parse((await httpsGet(`${server.url}/version`, ca)).body) as Record<string, string>;
      assert.match(version['gitVersion'] ?? '', /^v\d+\.\d+\.\d+/);
      assert.equal(version['platform']?.startsWith('linux/'), true);
      const metrics = await httpsGet(`${server.url}/metrics`, ca);
      assert.match(String(metrics.headers['content-type']), /^text\/plain; version=0\.0\.4/);
      assert.match(metrics.body, /edgeplane_http_requests_total\{method="GET",route="\/healthz",code="200"\} 1/);
      assert.match(metrics.body, /edgeplane_store_operations_total\{backend="sqlite",operation="currentRevision",result="ok"\}/);
      assert.match(metrics.body, /process_resident_memory_bytes/);
      assert.equal((await httpsGet(`${server.url}/no/such/path`, ca)).status, 404);
      await assert.rejects(httpsGet(server.url.replace('https:', 'https:') + '/healthz', ''), /certificate|self.signed|unable to verify/i);
    } finally {
      const code = await server.stop('SIGINT');
      assert.equal(code, 0);
    }
    assert.ok(server.logs.some((l) => l['msg'] === 'shut down cleanly'));
  });

  it('offers only AEAD cipher suites over TLS 1.2, and TLS 1.3', async () => {
    const home = join(root, 'ciphers');
    const server = await startServer(home);
    const { port } = new URL(server.url);
    const handshake = (options: { ciphers?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' }): Promise<string> =>
      new Promise((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: Number(port), rejectUnauthorized: false, ...options }, () => {
          const cipher = socket.getCipher().name;
          socket.end();
          resolve(`${socket.getProtocol() ?? '?'} ${cipher}`);
        });
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(`refused: ${error.code ?? error.message}`));
      });
    try {
      for (const legacy of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA', 'ECDHE-ECDSA-AES128-SHA256', 'ECDHE-ECDSA-AES256-SHA384']) {
        assert.match(await handshake({ ciphers: legacy, maxVersion: 'TLSv1.2' }), /^refused: /, legacy);
      }
      assert.equal(await handshake({ ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256', maxVersion: 'TLSv1.2' }), 'TLSv1.2 ECDHE-ECDSA-AES128-GCM-SHA256');
      assert.equal(await handshake({ ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305', maxVersion: 'TLSv1.2' }), 'TLSv1.2 ECDHE-ECDSA-CHACHA20-POLY1305');
      assert.match(await handshake({}), /^TLSv1\.3 TLS_/);
    } finally {
      await server.stop();
    }
  });

  it('keeps every file of its home private (folders 0700, files 0600), fixing what it finds open', async () => {
    const home = join(root, 'private');
    mkdirSync(join(home, 'store'), { recursive: true, mode: 0o755 });
    chmodSync(home, 0o755);
    writeFileSync(join(home, 'notes'), 'x', { mode: 0o644 });
    const server = await startServer(home);
    try {
      const created = await httpsRequest(`${server.url}/api/config/namespaces/default/dns_domains`, readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), {
        method: 'POST',
        headers: { authorization: `APIToken ${readFileSync(join(home, 'api-token'), 'utf8').trim()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: 'example.com', namespace: 'default' }, spec: { vendor_managed: null } }),
      });
      assert.equal(created.status, 200, created.body);
      const open: string[] = [];
      const walk = (path: string): void => {
        const stat = lstatSync(path);
        if (stat.isSymbolicLink()) return;
        if ((stat.mode & 0o777) !== (stat.isDirectory() ? 0o700 : 0o600)) open.push(`${path} ${(stat.mode & 0o777).toString(8)}`);
        if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
      };
      walk(home);
      assert.deepEqual(open, []);
      assert.ok(readdirSync(join(home, 'store')).some((name) => name.endsWith('-wal')), 'the WAL exists and was checked');
      assert.ok(server.logs.some((l) => l['msg'] === 'made private: group and others had access' && l['path'] === join(home, 'notes')));
    } finally {
      await server.stop();
    }
  });

  it('answers a request still arriving at SIGINT with a clean 503 and Connection: close, then exits 0', async () => {
    const home = join(root, 'b');
    const server = await startServer(home);
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const { port } = new URL(server.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca, servername: 'localhost' });
    await new Promise<void>((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
    let response = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (response += chunk));
    const ended = new Promise<void>((resolve) => socket.once('end', resolve));
    // Half a request: the server is reading it when the signal arrives.
    socket.write('GET /readyz?verbose HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((r) => setTimeout(r, 100));
    const exit = server.stop('SIGINT');
    await new Promise((r) => setTimeout(r, 300));
    socket.write('Connection: close\r\n\r\n');
    await ended;
    assert.match(response, /^HTTP\/1\.1 503 /);
    assert.match(response, /\r\nConnection: close\r\n/i);
    assert.match(response, /\r\n\r\n\{"error":"Service Unavailable"/);
    assert.equal(await exit, 0);
    // Once it stopped listening, new connections are refused rather than half-served.
    await assert.rejects(httpsGet(`${server.url}/readyz`, ca), (e: NodeJS.ErrnoException) => e.code === 'ECONNREFUSED');
  });

  it('reuses its CA and store on the next start', async () => {
    const home = join(root, 'c');
    const first = await startServer(home);
    await first.stop();
    const caBefore = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const second = await startServer(home);
    try {
      assert.equal(readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), caBefore);
      assert.ok(second.logs.some((l) => l['msg'] === 'platform PKI ready' && l['outcome'] === 'reused'));
      assert.equal((await httpsGet(`${second.url}/readyz`, caBefore)).status, 200);
    } finally {
      await second.stop();
    }
  });

  it('keeps the CA a home made in pki/ before the CA moved to the store: imported on the first start', async () => {
    const home = join(root, 'legacy');
    const legacy = await ensurePlatformPki({ dir: join(home, 'pki'), hosts: [] });
    const server = await startServer(home);
    try {
      assert.equal(server.logs.find((l) => l['msg'] === 'platform PKI ready')?.['ca'], 'imported');
      assert.equal(readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), legacy.caCert);
      assert.equal((await httpsGet(`${server.url}/readyz`, legacy.caCert)).status, 200);
    } finally {
      await server.stop();
    }
    const again = await startServer(home);
    try {
      assert.equal(again.logs.find((l) => l['msg'] === 'platform PKI ready')?.['ca'], 'stored');
    } finally {
      await again.stop();
    }
  });

  describe('on etcd', () => {
    let etcd: EtcdTestServer;
    // Servers over one store share its keys: the operator gives each the same key-encryption key.
    const kek = join(root, 'etcd.kek');
    let etcdArgs: string[];
    before(async () => {
      etcd = await EtcdTestServer.create();
      writeFileSync(kek, 'ab'.repeat(32) + '\n', { mode: 0o600 });
      etcdArgs = ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint, '--identity-kek-file', kek];
    });
    after(() => etcd?.stop());

    it('runs with --store etcd and reports the etcd check', async () => {
      const home = join(root, 'd');
      const server = await startServer(home, etcdArgs);
      try {
        const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
        assert.equal((await httpsGet(`${server.url}/readyz?verbose`, ca)).body, '[+]ping ok\n[+]etcd ok\n[+]store-writable ok\n[+]shutdown ok\nreadyz check passed\n');
      } finally {
        assert.equal(await server.stop('SIGTERM'), 0);
      }
    });

    it('finishes a request whose handler is running when SIGTERM arrives, and only then closes the store', async () => {
      const home = join(root, 'f');
      const server = await startServer(home, etcdArgs);
      const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
      const pid = etcd.pid;
      assert.ok(pid !== undefined);
      process.kill(pid, 'SIGSTOP'); // the readiness check now waits on a frozen etcd
      try {
        const inFlight = httpsGet(`${server.url}/readyz/etcd`, ca);
        await new Promise((r) => setTimeout(r, 300));
        const exit = server.stop('SIGTERM');
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(server.child.exitCode, null, 'the server exited with a request in flight');
        process.kill(pid, 'SIGCONT');
        const res = await inFlight;
        assert.deepEqual([res.status, res.body], [200, 'ok']);
        assert.equal(await exit, 0);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
    });
  });

  it('every command has --help, and bad flags fail with a message', () => {
    for (const args of [['--help'], ['server', '--help'], ['version', '--help']]) {
      const run = spawnSync(process.execPath, [EDGEPLANE_BIN, ...args], { encoding: 'utf8' });
      assert.equal(run.status, 0, args.join(' '));
      assert.match(run.stdout, /^Usage: edgeplane/);
    }
    const bad = spawnSync(process.execPath, [EDGEPLANE_BIN, 'server', '--listen', 'nowhere'], { encoding: 'utf8' });
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /listen address "nowhere" is not host:port/);
    const etcdWithout = spawnSync(process.execPath, [EDGEPLANE_BIN, 'server', '--store', 'etcd', '--home', join(root, 'e')], { encoding: 'utf8' });
    assert.notEqual(etcdWithout.status, 0);
    assert.match(etcdWithout.stderr, /--store etcd needs --etcd-endpoints/);
  });
});
