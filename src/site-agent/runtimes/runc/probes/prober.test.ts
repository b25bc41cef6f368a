import assert from 'node:assert/strict';
import { systemTimers } from '../../../../common/timers.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { createPrivateCa } from '../../../../secrets/testing/private-ca.js';
import { toolPath } from '../../../../testing/tools.js';
import { NetnsSocketBroker } from '../network/netns-broker.js';
import { runProbe, type Dial, type ExecInContainer, type ProbeTarget } from './prober.js';

/** Dials on the host's loopback and hands the socket over paused, as the netns broker does. */
const dial: Dial = (host, port, timeoutMs) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.pause();
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });

const noExec: ExecInContainer = () => Promise.reject(new Error('no exec here'));
const servers: Array<{ close(): unknown }> = [];

async function serve(handler: RequestListener, server: Server = createServer()): Promise<number> {
  server.on('request', handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => server.closeAllConnections() ?? server.close() });
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function target(ports: Array<{ name: string; containerPort: number }> = [], exec: ExecInContainer = noExec): ProbeTarget {
  return { podIP: '127.0.0.1', container: { ports, env: [{ name: 'GREETING', value: 'hello' }] }, dial, exec, timers: systemTimers() };
}

after(() => {
  for (const server of servers) server.close();
});

describe('HTTP probes', () => {
  it('GETs the path on the pod IP with kubelet\'s User-Agent and the probe\'s headers, resolving a named port; 2xx succeeds', async () => {
    let seen: { url?: string; headers?: IncomingHttpHeaders } = {};
    const port = await serve((req, res) => {
      seen = { url: req.url ?? '', headers: req.headers };
      res.end('fine');
    });
    const result = await runProbe({ httpGet: { path: '/healthz?deep=1', port: 'web', httpHeaders: [{ name: 'X-Probe', value: 'yes' }] } }, 1000, target([{ name: 'web', containerPort: port }]));
    assert.deepEqual(result, { outcome: 'success', output: 'fine' });
    assert.equal(seen.url, '/healthz?deep=1');
    assert.equal(seen.headers?.['user-agent'], 'kube-probe/1.17');
    assert.equal(seen.headers?.['x-probe'], 'yes');
    assert.equal(seen.headers?.host, `127.0.0.1:${port}`);
    assert.equal(seen.headers?.connection, 'close');

    await runProbe({ httpGet: { port, httpHeaders: [{ name: 'User-Agent', value: 'mine' }, { name: 'Host', value: 'app.local' }] } }, 1000, target());
    assert.equal(seen.url, '/');
    assert.equal(seen.headers?.['user-agent'], 'mine');
    assert.equal(seen.headers?.host, 'app.local');
  });

  it('fails with the status code outside 200–399, and with Go\'s words when the connection is refused', async () => {
    const port = await serve((_req, res) => {
      res.statusCode = 500;
      res.end('broken');
    });
    assert.deepEqual(await runProbe({ httpGet: { path: '/healthz', port } }, 1000, target()), { outcome: 'failure', output: 'HTTP probe failed with statuscode: 500' });
    const closed = await closedPort();
    assert.deepEqual(await runProbe({ httpGet: { path: '/healthz', port: closed } }, 1000, target()), {
      outcome: 'failure',
      output: `Get http://127.0.0.1:${closed}/healthz: dial tcp 127.0.0.1:${closed}: connect: connection refused`,
    });
  });

  it('gives up at the timeout when the server does not answer', async () => {
    const port = await serve(() => undefined);
    const started = Date.now();
    const result = await runProbe({ httpGet: { path: '/slow', port } }, 300, target());
    const took = Date.now() - started;
    assert.deepEqual(result, { outcome: 'failure', output: `Get http://127.0.0.1:${port}/slow: net/http: request canceled (Client.Timeout exceeded while awaiting headers)` });
    assert.ok(took >= 290 && took < 2000, `took ${took} ms`);
  });

  it('reads at most 10 KiB of the body, even from a body that never ends', async () => {
    const port = await serve((_req, res) => {
      const chunk = Buffer.alloc(4096, 'a');
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const result = await runProbe({ httpGet: { port } }, 2000, target());
    assert.equal(result.outcome, 'success');
    assert.equal(result.output?.length, 10 * 1024);
  });

  it('follows redirects on the same host, warns at a redirect to another host, and stops after 10', async () => {
    const port = await serve((req, res) => {
      const hops = Number(/hop=(\d+)/.exec(req.url ?? '')?.[1] ?? '0');
      if (req.url === '/elsewhere') res.writeHead(302, { location: 'http://example.invalid/' }).end('gone');
      else if (req.url?.startsWith('/loop')) res.writeHead(302, { location: `/loop?hop=${hops + 1}` }).end();
      else if (hops < 3) res.writeHead(301, { location: `/?hop=${hops + 1}` }).end();
      else res.end(`after ${hops}`);
    });
    assert.deepEqual(await runProbe({ httpGet: { port } }, 1000, target()), { outcome: 'success', output: 'after 3' });
    assert.deepEqual(await runProbe({ httpGet: { port, path: '/elsewhere' } }, 1000, target()), { outcome: 'warning', output: 'gone' });
    assert.deepEqual(await runProbe({ httpGet: { port, path: '/loop' } }, 1000, target()), {
      outcome: 'failure',
      output: 'Get /loop?hop=10: stopped after 10 redirects',
    });
  });

  it('speaks HTTPS without verifying the certificate', async () => {
    const ca = await createPrivateCa();
    const pair = await ca.issue({ commonName: 'pod', names: ['pod.invalid'], usage: 'server' });
    const port = await serve((_req, res) => res.end('secure'), createHttpsServer({ cert: pair.certificate, key: pair.key }));
    assert.deepEqual(await runProbe({ httpGet: { scheme: 'HTTPS', port, path: '/tls' } }, 2000, target()), { outcome: 'success', output: 'secure' });
    assert.deepEqual(await runProbe({ httpGet: { scheme: 'HTTP', port, path: '/tls' } }, 1000, target()), { outcome: 'failure', output: `Get http://127.0.0.1:${port}/tls: EOF` });
  });

  it('reports a port the container does not name as an error, as kubelet does', async () => {
    assert.deepEqual(await runProbe({ httpGet: { port: 'metrics' } }, 1000, target()), { outcome: 'error', output: 'strconv.Atoi: parsing "metrics": invalid syntax' });
    assert.deepEqual(await runProbe({ tcpSocket: { port: 70000 } }, 1000, target()), { outcome: 'error', output: 'invalid port number: 70000' });
    assert.deepEqual(await runProbe({}, 1000, target()), { outcome: 'error', output: 'missing probe handler' });
  });
});

describe('TCP and exec probes', () => {
  it('a TCP probe succeeds when the port accepts and fails with Go\'s words when refused', async () => {
    const port = await serve((_req, res) => res.end());
    assert.deepEqual(await runProbe({ tcpSocket: { port: String(port) } }, 1000, target()), { outcome: 'success' });
    const closed = await closedPort();
    assert.deepEqual(await runProbe({ tcpSocket: { port: 'db' } }, 1000, target([{ name: 'db', containerPort: closed }])), {
      outcome: 'failure',
      output: `dial tcp 127.0.0.1:${closed}: connect: connection refused`,
    });
    const timedOut: Dial = () => Promise.reject(Object.assign(new Error('connect 10.0.0.5:80 timed out'), { code: 'ETIMEDOUT' }));
    assert.deepEqual(await runProbe({ tcpSocket: { port: 80, host: '10.0.0.5' } }, 1000, { ...target(), dial: timedOut }), { outcome: 'failure', output: 'dial tcp 10.0.0.5:80: i/o timeout' });
  });

  it('an exec probe succeeds on exit code 0, fails with its output otherwise, expands $(VAR) and times out', async () => {
    const runs: Array<readonly string[]> = [];
    const exec: ExecInContainer = async (command, timeoutMs) => {
      runs.push(command);
      if (command[0] === 'sleep') {
        await delay(timeoutMs * 3);
        return { exitCode: 0, output: '' };
      }
      return command[0] === 'true' ? { exitCode: 0, output: 'ok\n' } : { exitCode: 1, output: 'not healthy\n' };
    };
    assert.deepEqual(await runProbe({ exec: { command: ['true', '$(GREETING)', '$$(GREETING)', '$(MISSING)'] } }, 1000, target([], exec)), { outcome: 'success', output: 'ok\n' });
    assert.deepEqual(runs[0], ['true', 'hello', '$(GREETING)', '$(MISSING)']);
    assert.deepEqual(await runProbe({ exec: { command: ['false'] } }, 1000, target([], exec)), { outcome: 'failure', output: 'not healthy\n' });
    const started = Date.now();
    assert.deepEqual(await runProbe({ exec: { command: ['sleep', '5'] } }, 100, target([], exec)), { outcome: 'failure', output: 'command "sleep 5" timed out' });
    assert.ok(Date.now() - started < 250);
    assert.deepEqual(await runProbe({ exec: { command: ['x'] } }, 100, target()), { outcome: 'error', output: 'no exec here' });
  });
});

describe('probes through the netns socket broker', () => {
  const ip = toolPath('ip');
  const netns = `ep-test-${randomBytes(3).toString('hex')}`;
  let broker: NetnsSocketBroker;

  before(() => {
    execFileSync(ip, ['netns', 'add', netns]);
    execFileSync(ip, ['-n', netns, 'link', 'set', 'lo', 'up']);
    broker = new NetnsSocketBroker(ip, netns);
  });

  after(() => {
    broker.close();
    execFileSync(ip, ['netns', 'delete', netns]);
  });

  it('HTTP and TCP probes reach a server inside the namespace, which the host network cannot', async () => {
    const listener = await broker.listen('127.0.0.1', 0);
    const port = (listener.address() as AddressInfo).port;
    const server = createServer((_req, res) => res.end('inside'));
    listener.on('connection', (socket: Socket) => server.emit('connection', socket));
    const inNamespace = { ...target(), dial: (host: string, p: number, timeoutMs: number) => broker.dial(host, p, timeoutMs) };
    try {
      assert.deepEqual(await runProbe({ httpGet: { port, path: '/ready' } }, 2000, inNamespace), { outcome: 'success', output: 'inside' });
      assert.deepEqual(await runProbe({ tcpSocket: { port } }, 2000, inNamespace), { outcome: 'success' });
      assert.equal((await runProbe({ tcpSocket: { port } }, 2000, target())).outcome, 'failure');
    } finally {
      listener.close();
      server.closeAllConnections();
    }
  });
});
