import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tool, toolPath } from '../../testing/tools.js';
import { NetnsSocketBroker } from '../runtimes/runc/index.js';
import { HaproxyError, HaproxyProcess } from './haproxy-process.js';
import type { ProxyEndpoints, ProxyService, SiteProxyInput } from './proxy-model.js';
import { planProxy } from './proxy-plan.js';

// A site namespace (bridge, ClusterIP and backend addresses on lo) with two "pod" namespaces
// on its bridge: 10.243.7.21 in cluster alpha, 10.243.7.22 in cluster beta. Backends are
// servers of this process listening inside the site namespace through the socket broker.
const ip = toolPath('ip');
const suffix = randomBytes(3).toString('hex');
const site = `ep-hp-${suffix}`;
const pods = { alpha: `ep-hpa-${suffix}`, beta: `ep-hpb-${suffix}` };
const ALPHA = 'acme:default:vk1';
const BETA = 'beta:default:vk1';
const CLUSTER_IP = '10.96.0.10';
const BACKENDS = ['10.243.8.11', '10.243.8.12'];
const dir = mkdtempSync(join(tmpdir(), 'ep-haproxy-'));
const proxy = new HaproxyProcess({ haproxy: tool('haproxy'), ip, netns: site, dir });
const brokers = { site: new NetnsSocketBroker(ip, site), alpha: new NetnsSocketBroker(ip, pods.alpha), beta: new NetnsSocketBroker(ip, pods.beta) };
const servers: Server[] = [];
const seenHeaders: IncomingHttpHeaders[] = [];
/** Connections each HTTP backend accepted. */
const httpConnections = new Map<string, number>();

const service = (name: string, port: number, proxyType: ProxyService['proxyType']): ProxyService => ({ cluster: ALPHA, namespace: 'default', name, clusterIP: CLUSTER_IP, proxyType, http2: false, sniNames: [], ports: [{ name: '', protocol: 'TCP', port }] });
const endpoints = (name: string, port: number, ready: readonly string[], notReady: readonly string[] = []): ProxyEndpoints => ({ cluster: ALPHA, namespace: 'default', name, subsets: [{ ready, notReady, ports: [{ name: '', protocol: 'TCP', port }] }] });
let services = [service('echo', 5000, 'TCP_PROXY'), service('web', 80, 'HTTP_PROXY')];
const input = (extra: Partial<SiteProxyInput> = {}): SiteProxyInput => ({
  services,
  endpoints: [endpoints('echo', 7000, BACKENDS), endpoints('web', 8080, [], [BACKENDS[0] as string])],
  clusterPods: { [ALPHA]: ['10.243.7.21'], [BETA]: ['10.243.7.22'] },
  ...extra,
});

before(async () => {
  execFileSync(ip, ['netns', 'add', site]);
  const commands = ['link set lo up', 'link add br0 type bridge', 'addr add 10.243.7.1/24 dev br0', 'link set br0 up', `addr add ${CLUSTER_IP}/32 dev lo`, ...BACKENDS.map((b) => `addr add ${b}/32 dev lo`)];
  for (const [i, pod] of [pods.alpha, pods.beta].entries()) {
    execFileSync(ip, ['netns', 'add', pod]);
    commands.push(`link add veth${i} type veth peer name eth0 netns ${pod}`, `link set veth${i} master br0`, `link set veth${i} up`);
  }
  execFileSync(ip, ['-n', site, '-batch', '-'], { input: commands.join('\n') });
  for (const [i, pod] of [pods.alpha, pods.beta].entries()) {
    execFileSync(ip, ['-n', pod, '-batch', '-'], { input: ['link set lo up', `addr add 10.243.7.${21 + i}/24 dev eth0`, 'link set eth0 up', 'route add default via 10.243.7.1'].join('\n') });
  }
  for (const address of BACKENDS) {
    // TCP: echoes each chunk with its name; after the client's FIN it still answers, then ends (half-close).
    const tcp = await brokers.site.listen(address, 7000);
    tcp.on('connection', (socket: Socket) => {
      socket.setEncoding('utf8').on('data', (chunk: string) => socket.write(`${address}:${chunk}`)).on('end', () => socket.end(`bye:${address}`));
    });
    const web = createServer((req, res) => {
      seenHeaders.push(req.headers);
      res.end(address);
    });
    const http = await brokers.site.listen(address, 8080);
    http.on('connection', (socket: Socket) => {
      httpConnections.set(address, (httpConnections.get(address) ?? 0) + 1);
      web.emit('connection', socket);
    });
    servers.push(tcp, http);
  }
  await proxy.start(planProxy(input()));
});

after(async () => {
  const pid = proxy.pid;
  await proxy.stop();
  for (const server of servers) server.close();
  for (const broker of Object.values(brokers)) broker.close();
  for (const ns of [site, pods.alpha, pods.beta]) execFileSync(ip, ['netns', 'delete', ns]);
  rmSync(dir, { recursive: true, force: true });
  if (pid !== undefined) assert.throws(() => process.kill(pid, 0), /ESRCH/, 'the HAProxy master is gone');
});

/** Connects from a pod namespace, sends and half-closes; resolves with everything received once the proxy or server closes. */
async function exchange(from: NetnsSocketBroker, port: number, send: readonly string[]): Promise<string> {
  // A refused connection may be reset before the dial completes: nothing was received either way.
  const socket = await from.dial(CLUSTER_IP, port).catch(() => undefined);
  if (socket === undefined) return '';
  return new Promise((resolve) => {
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk)).on('close', () => resolve(received)).on('error', () => undefined);
    socket.resume();
    for (const text of send) socket.write(text);
    socket.end();
  });
}

function httpGet(from: NetnsSocketBroker, port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const createConnection = (_options: unknown, created: (error: Error | null, socket?: Socket) => void): undefined => {
      from.dial(CLUSTER_IP, port).then((socket) => {
        created(null, socket);
        socket.resume();
      }, created);
      return undefined;
    };
    const req = request({ host: CLUSTER_IP, port, path: '/', createConnection: createConnection as never }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HaproxyProcess in a site namespace', () => {
  it('TCP_PROXY balances connections across both endpoints and keeps half-closed connections answering', async () => {
    const replies = await Promise.all([0, 1, 2, 3].map(() => exchange(brokers.alpha, 5000, ['hi'])));
    for (const reply of replies) assert.match(reply, /^(10\.243\.8\.1[12]):hibye:\1$/, 'echoed, then answered after the FIN');
    assert.deepEqual(new Set(replies.map((r) => r.split(':')[0])), new Set(BACKENDS));
  });

  it("refuses a pod of another cluster on the Service's ClusterIP", async () => {
    assert.equal(await exchange(brokers.beta, 5000, ['hi']), '');
  });

  it('HTTP_PROXY answers 503 with a clear body while no endpoint is ready, then forwards with X-Forwarded-For once one is (a runtime change)', async () => {
    const down = await httpGet(brokers.alpha, 80);
    assert.equal(down.status, 503);
    assert.match(down.body, /no ready endpoint of Service default\/web port 80 on this site/);
    const result = await proxy.apply(planProxy(input({ endpoints: [endpoints('echo', 7000, BACKENDS), endpoints('web', 8080, [BACKENDS[0] as string])] })));
    assert.deepEqual(result, { reloaded: false, reasons: [], commands: [`enable server be:${ALPHA}:default:web:80/${BACKENDS[0] as string}:8080`] });
    const up = await httpGet(brokers.alpha, 80);
    assert.deepEqual(up, { status: 200, body: BACKENDS[0] });
    assert.equal(seenHeaders.at(-1)?.['x-forwarded-for'], '10.243.7.21');
    assert.equal(seenHeaders.at(-1)?.['x-forwarded-proto'], 'http');
  });

  it('a reload (a new Service) keeps an established TCP connection', async () => {
    const socket = await brokers.alpha.dial(CLUSTER_IP, 5000);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.resume();
    socket.write('one');
    await waitFor(() => received.endsWith('one'));
    services = [...services, service('extra', 6000, 'TCP_PROXY')];
    const result = await proxy.apply(planProxy(input()));
    assert.equal(result.reloaded, true);
    assert.ok(result.reasons.includes(`fe:${CLUSTER_IP}:6000 added`), result.reasons.join(', '));
    socket.write('two');
    await waitFor(() => received.endsWith('two'));
    socket.end();
    assert.match(received, /^(10\.243\.8\.1[12]):one\1:two$/);
  });

  it('a runtime disable (endpoint not ready) moves new connections to the other endpoint, and new endpoints are added without a reload', async () => {
    const [first, second] = BACKENDS as [string, string];
    const result = await proxy.apply(planProxy(input({ endpoints: [endpoints('echo', 7000, [second], [first])] })));
    assert.equal(result.reloaded, false);
    assert.ok(result.commands.includes(`disable server be:${ALPHA}:default:echo:5000/${first}:7000`), result.commands.join('; '));
    const replies = await Promise.all([0, 1, 2, 3].map(() => exchange(brokers.alpha, 5000, ['x'])));
    assert.deepEqual(new Set(replies.map((r) => r.split(':')[0])), new Set([second]));
    // A pod of cluster alpha appears: its address joins the source list at run time.
    const grown = await proxy.apply(planProxy(input({ endpoints: [endpoints('echo', 7000, [second], [first])], clusterPods: { [ALPHA]: ['10.243.7.21', '10.243.7.22'], [BETA]: [] } })));
    assert.deepEqual(grown, { reloaded: false, reasons: [], commands: [`add acl ${dir}/sources/${ALPHA}.lst 10.243.7.22`] });
    assert.match(await exchange(brokers.beta, 5000, ['y']), /^10\.243\.8\.12:y/);
  });

  it('refuses a configuration HAProxy rejects, with its message, and keeps the running one', async () => {
    const bad = { ...service('bad', 7001, 'TCP_PROXY'), clusterIP: '10.96.0.300' };
    await assert.rejects(proxy.apply(planProxy(input({ services: [...services, bad] }))), (error: unknown) => error instanceof HaproxyError && /refused the configuration: .*10\.96\.0\.300/s.test(error.message));
    assert.match(await exchange(brokers.alpha, 5000, ['z']), /^10\.243\.8\.1[12]:z/);
  });

  it('an HTTP server added at run time (add server) keeps its connection for the next requests', async () => {
    const added = BACKENDS[1] as string;
    const result = await proxy.apply(planProxy(input({ endpoints: [endpoints('echo', 7000, BACKENDS), endpoints('web', 8080, [added])] })));
    assert.equal(result.reloaded, false);
    assert.ok(result.commands.some((c) => c.startsWith(`add server be:${ALPHA}:default:web:80/${added}:8080 `)), result.commands.join('; '));
    const before = httpConnections.get(added) ?? 0;
    // Five requests one after another on one client connection (http-reuse safe reuses within a client's session).
    const socket = await brokers.alpha.dial(CLUSTER_IP, 80);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.resume();
    for (let i = 1; i <= 5; i++) {
      socket.write(`GET / HTTP/1.1\r\nHost: web\r\n\r\n`);
      await waitFor(() => received.split('HTTP/1.1 200').length - 1 === i);
    }
    socket.destroy();
    assert.equal((httpConnections.get(added) ?? 0) - before, 1, 'one server connection for five requests');
  });

  it('the next agent adopts the running master (same pid, its plan known): a connection survives and a readiness flip is a runtime command', async () => {
    const pid = proxy.pid;
    const socket = await brokers.alpha.dial(CLUSTER_IP, 5000);
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.resume();
    socket.write('one');
    await waitFor(() => received.endsWith('one'));
    const next = new HaproxyProcess({ haproxy: tool('haproxy'), ip, netns: site, dir });
    assert.equal(await next.adopt(), true);
    assert.equal(next.pid, pid);
    const [first, second] = BACKENDS as [string, string];
    const result = await next.apply(planProxy(input({ endpoints: [endpoints('echo', 7000, [first], [second]), endpoints('web', 8080, [second])] })));
    assert.deepEqual(result, { reloaded: false, reasons: [], commands: [`disable server be:${ALPHA}:default:echo:5000/${second}:7000`] });
    socket.write('two');
    await waitFor(() => received.endsWith('two'));
    socket.end();
    assert.equal(next.pid, pid);
    // A folder whose saved master is unknown (a stale state file) adopts nothing: its leftover master is stopped, by its pid file.
    const empty = mkdtempSync(join(tmpdir(), 'ep-haproxy-none-'));
    const other = new HaproxyProcess({ haproxy: tool('haproxy'), ip, netns: site, dir: empty });
    assert.equal(await other.adopt(), false);
    assert.equal(other.pid, undefined);
    rmSync(empty, { recursive: true, force: true });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
