import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { describe, it } from 'node:test';
import type { RequestListener } from 'node:http';
import { parseLoopbackAddress, serveOnLoopback } from './loopback-listener.js';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

function app(): RequestListener {
  return (_req, res) => res.end('READY');
}

/** An IPv4 address of this host that is not loopback, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;
}

describe('loopback listener', () => {
  it('listen addresses must be loopback IPs', () => {
    assert.deepEqual(parseLoopbackAddress('127.0.0.1:8070'), { host: '127.0.0.1', port: 8070, optional: false });
    assert.deepEqual(parseLoopbackAddress('[::1]:9000'), { host: '::1', port: 9000, optional: false });
    assert.equal(parseLoopbackAddress('127.3.2.1:0').host, '127.3.2.1');
    for (const value of ['0.0.0.0:8070', ':8070', '10.1.2.3:8070', '[::]:8070', 'localhost:8070', '[::ffff:10.0.0.1]:8070']) {
      assert.throws(() => parseLoopbackAddress(value), new RegExp(`--listen ${value.replace(/[[\]]/g, '\\$&')}: the sidecar serves private keys without authentication, so it listens on loopback addresses only`));
    }
    assert.throws(() => parseLoopbackAddress('127.0.0.1'), /is not host:port/);
  });

  it('loopback listener serves 127.0.0.1 and [::1] on one port, and nothing else', async () => {
    const servers = await serveOnLoopback(app(), [
      { host: '127.0.0.1', port: 0, optional: false },
      { host: '::1', port: 0, optional: true },
    ]);
    try {
      assert.ok(servers.urls.length >= 1);
      const port = new URL(servers.urls[0]!).port;
      for (const url of servers.urls) {
        assert.equal(new URL(url).port, port, 'one port for every address');
        assert.deepEqual(await get(`${url}/status`), { status: 200, body: 'READY' });
      }
      if (servers.skipped.length === 0) assert.deepEqual(servers.urls, [`http://127.0.0.1:${port}`, `http://[::1]:${port}`]);
      const external = externalAddress();
      if (external !== undefined) await assert.rejects(get(`http://${external}:${port}/status`), /ECONNREFUSED/, 'not reachable from outside the loopback');
    } finally {
      await servers.close();
    }
  });

  it('loopback listener refuses a non-loopback address and fails when a port is taken', async () => {
    await assert.rejects(serveOnLoopback(app(), [{ host: '0.0.0.0', port: 0, optional: false }]), /0\.0\.0\.0 is not a loopback address/);
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await assert.rejects(serveOnLoopback(app(), [{ host: '127.0.0.1', port, optional: true }]), new RegExp(`cannot listen on http://127.0.0.1:${port}: .*EADDRINUSE`));
    } finally {
      blocker.close();
    }
  });
});
