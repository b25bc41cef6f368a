import assert from 'node:assert/strict';
import { Agent, request } from 'node:https';
import { describe, it } from 'node:test';
import { connect } from 'node:tls';
import { useServerWithCluster } from './support/server-with-cluster.js';

/** At most this many 64 KiB creates are sent before the watch must have been closed (~25 MiB). */
const MAX_CREATES = 400;

/**
 * A watch whose client never reads is closed once its unread bytes pass the bound (4 MiB),
 * instead of the server buffering every event for it (issue 20, defect 4).
 */
describe('a virtual cluster watch that never reads', () => {
  const fixture = useServerWithCluster('slow-watch');

  it('is closed once its unread events pass the byte bound, and the server says so', { timeout: 120_000 }, async () => {
    const tlsOptions = { ca: fixture.cluster.ca, cert: fixture.cluster.cert, key: fixture.cluster.key };
    const base = new URL(fixture.cluster.server);
    // The watch: its request is sent, then nothing is ever read (the socket stays paused).
    const watch = connect({ host: base.hostname, port: Number(base.port), servername: 'localhost', ...tlsOptions });
    await new Promise<void>((resolve, reject) => {
      watch.once('secureConnect', resolve);
      watch.once('error', reject);
    });
    watch.pause();
    watch.write(`GET ${base.pathname}/api/v1/namespaces/default/configmaps?watch=1 HTTP/1.1\r\nHost: ${base.host}\r\n\r\n`);
    const closedLog = (): boolean => fixture.server.logs.some((l) => l['msg'] === 'watch closed: its client stopped reading');

    const agent = new Agent({ keepAlive: true, maxSockets: 4, ...tlsOptions });
    const url = new URL(`${fixture.cluster.server}/api/v1/namespaces/default/configmaps`);
    let creates = 0;
    try {
      while (creates < MAX_CREATES && !closedLog()) {
        const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${creates}` }, data: { value: 'x'.repeat(64 * 1024) } });
        const status = await new Promise<number>((resolve, reject) => {
          const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end(body);
        });
        assert.equal(status, 201);
        creates += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      agent.destroy();
    }
    const line = fixture.server.logs.find((l) => l['msg'] === 'watch closed: its client stopped reading');
    assert.ok(line !== undefined, `no slow watch was closed after ${creates} creates of 64 KiB`);
    assert.ok(Number(line['bufferedBytes']) > 4 * 1024 * 1024, JSON.stringify(line));
    // The server destroyed the connection: reading now drains what was sent, then it ends.
    watch.resume();
    await new Promise<void>((resolve) => {
      watch.on('close', () => resolve());
      watch.on('error', () => undefined);
    });
  });
});
