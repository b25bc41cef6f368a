import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type RawConnection, openConnection, sendHeadersSlowly, statusOf } from './support/abusive-clients.js';
import { type ClusterCredentials, clusterWithKubeconfig } from './support/cluster-credentials.js';
import { httpsRequest, startServer, type ServerProcess } from './support/server-process.js';

const IDLE_MS = 1000;
const HEADER_MS = 2000;
const READ_MS = 3000;
const PER_ADDRESS = 5;
const SERVER_CAP = 20;
const RATE = 2;
const BURST = 4;

/**
 * How late a closing may be: node checks the read timeouts every quarter of the shorter one
 * (here every 500 ms) and closes a keep-alive connection a second after what it advertised;
 * the rest is room for a loaded machine (the defaults are 30 s and more).
 */
const SLACK_MS = 3000;

/**
 * Abusive clients against a real `edgeplane server` with small limits (issue 20, defect 8):
 * idle and slow connections are closed, connections beyond the caps are refused while others
 * are served, a credential over its rate gets 429 while others do not, and a watch outlives
 * the idle timeout.
 */
describe('abusive clients', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-abuse-'));
  const home = join(root, 'home');
  let server: ServerProcess;
  let ca: string;
  let adminToken: string;
  let platformToken: string;
  let cluster: ClusterCredentials;

  before(async () => {
    server = await startServer(home, [
      '--idle-timeout', `${IDLE_MS}ms`,
      '--read-header-timeout', `${HEADER_MS}ms`,
      '--read-timeout', `${READ_MS}ms`,
      '--max-connections-per-address', String(PER_ADDRESS),
      '--max-connections', String(SERVER_CAP),
      '--config-api-rate', String(RATE),
      '--config-api-burst', String(BURST),
    ]);
    ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    adminToken = readFileSync(join(home, 'api-token'), 'utf8').trim();
    platformToken = readFileSync(join(home, 'platform-api-token'), 'utf8').trim();
    cluster = clusterWithKubeconfig(home, root, 'default', 'vk1');
  });
  after(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  const metric = async (line: RegExp): Promise<number> => {
    // Right after a test filled the server's cap, the server may not have counted the closes
    // yet and refuse this connection too: ask again for a moment.
    let text: string | undefined;
    for (let attempt = 1; text === undefined; attempt++) {
      try {
        text = (await httpsRequest(`${server.url}/metrics`, ca)).body;
      } catch (error) {
        if (attempt === 40) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    const match = new RegExp(`^${line.source} (\\S+)$`, 'm').exec(text);
    return match === null ? 0 : Number(match[1]);
  };
  const open = async (localAddress = '127.0.0.1'): Promise<RawConnection> => {
    const connection = await openConnection(server.url, { ca, localAddress });
    assert.ok(connection, `a connection from ${localAddress} was refused`);
    return connection;
  };

  it('closes a keep-alive connection idle for the idle timeout, and one that never sends a request after the header timeout', async () => {
    const keptAlive = await open();
    keptAlive.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    while (!keptAlive.received().endsWith('ok')) await new Promise((resolve) => setTimeout(resolve, 5));
    const answeredAt = performance.now();
    assert.match(keptAlive.received(), /^HTTP\/1\.1 200 OK\r\n[^]*Keep-Alive: timeout=1\r\n/);
    const silent = await open();

    const idleFor = (await keptAlive.closed) - answeredAt;
    assert.ok(idleFor >= IDLE_MS - 50 && idleFor <= IDLE_MS + SLACK_MS, `closed after ${Math.round(idleFor)} ms idle`);
    const silentFor = (await silent.closed) - silent.openedAt;
    assert.ok(silentFor >= HEADER_MS - 50 && silentFor <= HEADER_MS + SLACK_MS, `closed after ${Math.round(silentFor)} ms without a request`);
    assert.equal(statusOf(silent.received()), 408);
  });

  it('closes a slowloris connection (a header byte a second) after the header timeout, and a slow body after the read timeout', async () => {
    const before408 = await metric(/edgeplane_http_read_timeouts_total/);
    const slowHeaders = await open();
    sendHeadersSlowly(slowHeaders, 1000);
    const slowBody = await open();
    slowBody.socket.write(`POST /api/web/namespaces HTTP/1.1\r\nHost: localhost\r\nAuthorization: APIToken ${platformToken}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const bodyTimer = setInterval(() => slowBody.socket.writable && slowBody.socket.write(' '), 500);
    void slowBody.closed.then(() => clearInterval(bodyTimer));

    const headersFor = (await slowHeaders.closed) - slowHeaders.openedAt;
    assert.ok(headersFor >= HEADER_MS - 50 && headersFor <= HEADER_MS + SLACK_MS, `slowloris closed after ${Math.round(headersFor)} ms`);
    assert.equal(statusOf(slowHeaders.received()), 408);
    const bodyFor = (await slowBody.closed) - slowBody.openedAt;
    assert.ok(bodyFor >= READ_MS - 50 && bodyFor <= READ_MS + SLACK_MS, `slow body closed after ${Math.round(bodyFor)} ms`);
    assert.equal(statusOf(slowBody.received()), 408);
    assert.equal((await metric(/edgeplane_http_read_timeouts_total/)) - before408, 2);
  });

  it('refuses connections beyond the cap per address while another client is answered, and beyond the server cap', async () => {
    const held: RawConnection[] = [];
    try {
      const fromOne = await Promise.all(Array.from({ length: PER_ADDRESS + 3 }, () => openConnection(server.url, { ca, localAddress: '127.0.0.2' })));
      held.push(...fromOne.filter((c) => c !== undefined));
      assert.equal(held.length, PER_ADDRESS, 'one address got only its share');
      const answer = await httpsRequest(`${server.url}/api/web/namespaces`, ca, { headers: { authorization: `APIToken ${platformToken}` } });
      assert.equal(answer.status, 200, 'a client at another address is served');
      assert.equal(await metric(/edgeplane_http_connections_rejected_total\{reason="address"\}/), 3);

      // More addresses fill the server's cap: then a connection from anywhere is refused.
      let refusedWith: number | undefined;
      for (const address of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) {
        for (let i = 0; i < PER_ADDRESS && refusedWith === undefined; i++) {
          const connection = await openConnection(server.url, { ca, localAddress: address });
          if (connection === undefined) refusedWith = held.length;
          else held.push(connection);
        }
      }
      // (The server may still count a connection of the requests above for a moment.)
      assert.ok(refusedWith !== undefined && refusedWith >= SERVER_CAP - 2 && refusedWith <= SERVER_CAP, `refused with ${refusedWith} held`);
      held.pop()?.socket.destroy();
      const freed = await waitUntil(async () => {
        const connection = await openConnection(server.url, { ca, localAddress: '127.0.0.7' });
        connection?.socket.destroy();
        return connection !== undefined;
      });
      assert.ok(freed, 'a closed connection makes room');
    } finally {
      for (const connection of held) connection.socket.destroy();
    }
    assert.ok((await metric(/edgeplane_http_connections_rejected_total\{reason="server"\}/)) >= 1);
    // Held connections are gone: the gauge comes back to what this test's own requests hold.
    assert.ok(await waitUntil(async () => (await metric(/edgeplane_http_connections/)) <= 2), 'open connections are counted down');
  });

  it('answers a credential over its rate with 429, Retry-After and the configuration API error, while another credential is served', async () => {
    const get = (token: string) => httpsRequest(`${server.url}/api/web/namespaces`, ca, { headers: { authorization: `APIToken ${token}` } });
    await new Promise((resolve) => setTimeout(resolve, (BURST / RATE) * 1000)); // a full bucket
    const statuses: number[] = [];
    let refused;
    for (let i = 0; i < BURST + 4 && refused === undefined; i++) {
      const answer = await get(adminToken);
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    assert.ok(refused, `no 429 after ${statuses.join(', ')}`);
    assert.ok(statuses.filter((s) => s === 200).length >= BURST, `the burst is served first: ${statuses.join(', ')}`);
    const retryAfter = String(refused.headers['retry-after']);
    assert.match(retryAfter, /^[1-9]\d*$/);
    assert.match(String(refused.headers['content-type']), /^application\/json/);
    const body = refused.json<{ code: number; details: unknown[]; message: string }>();
    assert.deepEqual([body.code, body.details], [8, []]);
    assert.match(body.message, /^too many requests of credential \S+: at most 2 per second \(bursts of 4\); retry after \d+ s$/);

    const refusedAt = Date.now();
    assert.equal((await get(platformToken)).status, 200, 'another credential is not held back');
    // The first one still is: only the tokens refilled since its 429 are served (a loaded machine may take a while between requests).
    let served = 0;
    while (served < 20 && (await get(adminToken)).status === 200) served++;
    const refilled = Math.floor(((Date.now() - refusedAt) / 1000) * RATE) + 1;
    assert.ok(served <= refilled, `the first credential got ${served} requests served after its 429, more than the ${refilled} its rate refilled`);
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000));
    assert.equal((await get(adminToken)).status, 200, 'after Retry-After it is served again');

    // Without a valid credential, the client address is what is counted; valid credentials from it are not held back.
    const unauthenticated: number[] = [];
    for (let i = 0; i < BURST + 2; i++) unauthenticated.push((await get('ep1.not-a-token')).status);
    assert.deepEqual([unauthenticated.slice(0, BURST).every((s) => s === 401), unauthenticated.at(-1)], [true, 429], unauthenticated.join(', '));
    assert.equal((await get(platformToken)).status, 200);
    assert.ok((await metric(/edgeplane_rate_limited_requests_total\{api="config",key="credential"\}/)) >= 2);
    assert.ok((await metric(/edgeplane_rate_limited_requests_total\{api="config",key="address"\}/)) >= 1);
  });

  it('keeps a watch open longer than the idle and read timeouts, until its own timeoutSeconds', async () => {
    const base = new URL(cluster.server);
    const tls = { ca: cluster.ca, cert: cluster.cert, key: cluster.key };
    const seconds = 5;
    const startedAt = performance.now();
    const watched = new Promise<{ lines: string[]; endedAt: number }>((resolve, reject) => {
      const req = request(`${cluster.server}/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=${seconds}`, { ...tls, agent: false }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve({ lines: text.split('\n').filter((l) => l !== ''), endedAt: performance.now() }));
        response.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    // An event after the idle and read timeouts have both passed.
    await new Promise((resolve) => setTimeout(resolve, READ_MS + 500));
    const created = await httpsRequest(`${base.origin}${base.pathname}/api/v1/namespaces/default/configmaps`, cluster.ca, {
      method: 'POST',
      cert: cluster.cert,
      key: cluster.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }),
    });
    assert.equal(created.status, 201);
    const { lines, endedAt } = await watched;
    assert.ok(lines.some((l) => l.includes('"name":"late"')), `the late event arrived: ${lines.join('\n')}`);
    assert.ok(endedAt - startedAt >= seconds * 1000 - 100, `ended by its timeoutSeconds, after ${Math.round(endedAt - startedAt)} ms`);
  });
});

async function waitUntil(probe: () => Promise<boolean>, timeoutMs = 5000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await probe()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}
