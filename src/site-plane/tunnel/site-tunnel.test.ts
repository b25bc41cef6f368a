import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Readable, Writable, type Duplex } from 'node:stream';
import type { KubeObject } from '../../apimachinery/object.js';
import { systemTimers } from '../../common/timers.js';
import { createLogger } from '../../observability/logger.js';
import { SiteStreamError, type PodStreams, type PodStreamTarget, type SiteExecOptions, type SiteLogOptions, type SiteStreamIo } from '../../site-api/pod-streams.js';
import { startSiteTunnel, type SiteTunnel } from '../../site-agent/tunnel/site-tunnel.js';
import { StreamError, type PodTarget } from '../../vk8s/streams/index.js';
import type { StreamIo } from '../../vk8s/streams/types.js';
import { registerTestSites } from '../testing/register-test-sites.js';
import { startSitePlaneHarness, type SitePlaneHarness } from '../testing/site-plane-harness.js';

const CLUSTER = { tenant: 'acme', namespace: 'default', name: 'vk' };

/** A runtime's streams for the tunnel to reach: answers by command, counts what it produced. */
class ScriptedStreams implements PodStreams {
  produced = 0;
  aborted = 0;
  lastTarget: PodStreamTarget | undefined;

  async exec(target: PodStreamTarget, options: SiteExecOptions, io: SiteStreamIo): Promise<number> {
    this.lastTarget = target;
    if (target.container === 'missing') throw SiteStreamError.containerNotFound('missing');
    const [command, argument] = options.command;
    switch (command) {
      case 'exit':
        return Number(argument);
      case 'cat':
        for await (const chunk of io.stdin ?? []) if (!io.stdout?.write(chunk)) await new Promise((r) => io.stdout?.once('drain', r));
        return 0;
      case 'both':
        io.stdout?.write('to stdout\n');
        io.stderr?.write('to stderr\n');
        return 2;
      case 'sizes':
        for await (const size of io.resize ?? []) {
          io.stdout?.write(`${size.width}x${size.height}\n`);
          if (size.width === 0) break;
        }
        return 0;
      case 'hang':
        await new Promise((resolve) => io.signal.addEventListener('abort', resolve, { once: true }));
        this.aborted += 1;
        return 0;
      default:
        throw new Error(`no command ${String(command)}`);
    }
  }

  attach(_target: PodStreamTarget, _options: unknown, io: SiteStreamIo): Promise<void> {
    io.stdout?.write('attached\n');
    return Promise.resolve();
  }

  async portForward(_target: PodStreamTarget, port: number): Promise<Duplex> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve(socket));
      socket.once('error', (error) => reject(new SiteStreamError(500, `failed to connect to localhost:${port}: ${error.message}`)));
    });
  }

  logs(_target: PodStreamTarget, options: SiteLogOptions): Promise<Readable> {
    if (!options.follow) return Promise.resolve(Readable.from([Buffer.from('one\n'), Buffer.from('two\n')]));
    // An endless log: `produced` says how far the site got ahead of the reader.
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const log: Readable = new Readable({
      read: () => {
        this.produced += chunk.length;
        log.push(chunk);
      },
    });
    return Promise.resolve(log);
  }
}

function collect(): { writable: Writable; text(): string; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  return {
    writable: new Writable({
      write(chunk: Buffer, _e, callback) {
        chunks.push(chunk);
        callback();
      },
    }),
    text: () => Buffer.concat(chunks).toString('utf8'),
    bytes: () => Buffer.concat(chunks),
  };
}

async function eventually(test: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`${what}: not yet after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A TCP relay to the control plane, the network in between: the test cuts or stalls it. */
class Relay {
  private readonly sockets = new Set<Socket>();
  stalled = false;
  private constructor(private readonly server: Server) {}

  static async start(targetPort: number): Promise<Relay> {
    const server = createServer();
    const relay = new Relay(server);
    server.on('connection', (downstream) => {
      const upstream = connect({ host: '127.0.0.1', port: targetPort });
      for (const [from, to] of [[downstream, upstream], [upstream, downstream]] as const) {
        relay.sockets.add(from);
        from.on('data', (data: Buffer) => relay.stalled || to.write(data));
        from.on('close', () => {
          relay.sockets.delete(from);
          to.destroy();
        });
        from.on('error', () => undefined);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function io(parts: { stdin?: Readable; stdout?: Writable; stderr?: Writable; resize?: AsyncIterable<{ width: number; height: number }> }, signal = new AbortController().signal): StreamIo {
  return { ...parts, signal };
}

const exec = (command: string[], extra: Partial<{ stdin: boolean; tty: boolean }> = {}) => ({ container: 'web', command, stdin: extra.stdin ?? false, stdout: true, stderr: !(extra.tty ?? false), tty: extra.tty ?? false });

describe('site tunnel: the control plane reaches a site\'s pod streams through the tunnel its agent dialled', () => {
  let h: SitePlaneHarness;
  let relay: Relay;
  let tunnel: SiteTunnel;
  let echo: Server;
  const streams = new ScriptedStreams();
  let target: PodTarget;
  const backend = () => h.sitePlane.podStreams;
  const connected = (): Promise<boolean> => backend().admit?.(target, 'exec').then(() => true, () => false) ?? Promise.resolve(false);

  before(async () => {
    h = await startSitePlaneHarness({ graceSeconds: 60, streamIdleTimeoutMs: 6000, tunnelPingIntervalMs: 2000 });
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { token: h.adminToken, body: { metadata: { name: 'vk' }, spec: {} } })).status, 200);
    const call = (method: string, path: string, o: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {}) =>
      o.headers?.['authorization'] !== undefined ? h.call(method, path, { bearer: o.headers['authorization'].replace(/^Bearer /, ''), body: o.body }) : h.call(method, path, { ...(o.token === null || o.token === undefined ? {} : { token: o.token }), body: o.body });
    const agent = await registerTestSites(call, { tenant: h.adminToken, platform: h.platformToken }, 'agent-t', [{ name: 'edge-t', type: 'CUSTOMER_EDGE' }]);
    relay = await Relay.start(Number(new URL(h.url).port));
    const pods = h.storage.storeFor({ group: '', resource: 'pods' });
    assert.ok(pods !== undefined);
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-t', labels: { 'svc.io/siteName': 'edge-t' } }, spec: { nodeName: 'edge-t-node-1', containers: [{ name: 'web', image: 'x' }] } };
    pods.strategy.defaults(pod);
    const created = await pods.create({ cluster: CLUSTER, dryRun: false, fieldManager: 'test' }, pod);
    target = { tenant: 'acme', namespace: 'default', vk8s: 'vk', pod: 'web-t', uid: created.metadata.uid ?? '', container: 'web' };
    await assert.rejects(backend().admit?.(target, 'exec') ?? Promise.reject(new Error('no admit')), (e: unknown) => e instanceof StreamError && e.code === 503 && /site "edge-t" is not connected/.test(e.message));
    tunnel = startSiteTunnel({
      credential: { server: `https://127.0.0.1:${relay.port}`, ca: h.ca, certificate: agent.cert, key: agent.key },
      streams,
      timers: systemTimers(),
      logger: createLogger({ level: 'silent' }),
      pingIntervalMs: 2000,
    });
    await tunnel.firstConnection;
    await eventually(connected, 'the tunnel registered');
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  });

  after(async () => {
    await tunnel?.close();
    await relay?.close();
    echo?.close();
    await h?.close();
  });

  it('exec: stdout and stderr apart, the exit code, the site\'s pod and container', async () => {
    const out = collect();
    const err = collect();
    const result = await backend().exec(target, exec(['both']), io({ stdout: out.writable, stderr: err.writable }));
    assert.deepEqual([result.exitCode, out.text(), err.text()], [2, 'to stdout\n', 'to stderr\n']);
    assert.deepEqual(streams.lastTarget, { cluster: CLUSTER, name: 'web-t', uid: target.uid, site: 'edge-t', container: 'web' });
    assert.equal((await backend().exec(target, exec(['exit', '3']), io({ stdout: collect().writable }))).exitCode, 3);
  });

  it('exec: 4 MiB of stdin come back byte for byte, and stdin\'s end reaches the command', async () => {
    const payload = randomBytes(4 * 1024 * 1024);
    const out = collect();
    const result = await backend().exec(target, exec(['cat'], { stdin: true }), io({ stdin: Readable.from([payload.subarray(0, 1000), payload.subarray(1000)]), stdout: out.writable }));
    assert.equal(result.exitCode, 0);
    assert.ok(out.bytes().equals(payload));
  });

  it('exec with a terminal: sizes reach the command in order', async () => {
    const out = collect();
    const sizes = Readable.from([{ width: 80, height: 24 }, { width: 120, height: 40 }, { width: 0, height: 0 }]);
    const result = await backend().exec(target, exec(['sizes'], { tty: true }), io({ stdout: out.writable, resize: sizes }));
    assert.deepEqual([result.exitCode, out.text()], [0, '80x24\n120x40\n0x0\n']);
  });

  it('a site\'s refusal keeps kubelet\'s code and text', async () => {
    await assert.rejects(backend().exec({ ...target, container: 'missing' }, exec(['exit', '0']), io({ stdout: collect().writable })), (e: unknown) => e instanceof StreamError && e.origin === 'node' && e.code === 500 && e.message === 'container not found ("missing")');
    await assert.rejects(backend().exec({ ...target, uid: 'another-incarnation' }, exec(['exit', '0']), io({})), (e: unknown) => e instanceof StreamError && /pod not found/.test(e.message));
  });

  it('the client leaving stops the command on the site', async () => {
    const abort = new AbortController();
    const before = streams.aborted;
    const running = backend().exec(target, exec(['hang']), io({ stdout: collect().writable }, abort.signal));
    await new Promise((resolve) => setTimeout(resolve, 100));
    abort.abort();
    await running.catch(() => undefined);
    await eventually(() => streams.aborted === before + 1, 'the site saw the abort');
  });

  it('logs: the body as the site wrote it', async () => {
    const log = await backend().logs(target, { container: 'web', follow: false, previous: false, timestamps: false });
    const chunks: Buffer[] = [];
    for await (const chunk of log as AsyncIterable<Buffer>) chunks.push(chunk);
    assert.equal(Buffer.concat(chunks).toString('utf8'), 'one\ntwo\n');
  });

  it('backpressure: a 1 GiB log whose reader pauses holds the site back (bounded), then flows to its end', async () => {
    const log = await backend().logs(target, { container: 'web', follow: true, previous: false, timestamps: false });
    const GiB = 1024 * 1024 * 1024;
    const producedBefore = streams.produced;
    let read = 0;
    log.on('data', (chunk: Buffer) => void (read += chunk.length));
    await eventually(() => read > 64 * 1024 * 1024, '64 MiB read');
    log.pause();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ahead = streams.produced - producedBefore - read;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const stillAhead = streams.produced - producedBefore - read;
    // Windows: 1 MiB per stream each way, plus the readables' buffers on both ends.
    assert.ok(stillAhead < 8 * 1024 * 1024, `the site is ${stillAhead} bytes ahead of a reader that stopped`);
    assert.ok(stillAhead - ahead < 256 * 1024, `the site kept producing while the reader stopped (${ahead} → ${stillAhead})`);
    log.resume();
    await eventually(() => read >= GiB, '1 GiB read', 120_000);
    log.destroy();
  });

  it('port-forward: bytes both ways, half-close, a refused port only on its connection', async () => {
    const port = (echo.address() as { port: number }).port;
    const [first, refused] = await Promise.allSettled([backend().portForward(target, port), backend().portForward(target, 1)]);
    assert.equal(refused.status, 'rejected');
    assert.match(String((refused).reason), /failed to connect to localhost:1/);
    assert.equal(first.status, 'fulfilled');
    const connection = (first).value;
    const payload = randomBytes(1024 * 1024);
    const back: Buffer[] = [];
    connection.on('data', (chunk: Buffer) => back.push(chunk));
    const ended = new Promise((resolve) => connection.once('end', resolve));
    connection.end(payload);
    await ended;
    assert.ok(Buffer.concat(back).equals(payload));
  });

  it('idle sessions close after the idle timeout', async () => {
    const started = Date.now();
    await assert.rejects(backend().exec(target, exec(['hang']), io({ stdout: collect().writable })), (e: unknown) => e instanceof StreamError && /closed after 6 s without traffic/.test(e.message));
    assert.ok(Date.now() - started >= 5900, 'closed before the idle timeout');
  });

  it('a cut network ends streams in flight with a clear error; the agent dials again and streams work', async () => {
    const running = backend().exec(target, exec(['hang']), io({ stdout: collect().writable }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    relay.cut();
    await assert.rejects(running, (e: unknown) => e instanceof StreamError && /the connection to site "edge-t" was lost/.test(e.message));
    await eventually(connected, 'the tunnel is back');
    await eventually(async () => (await backend().exec(target, exec(['exit', '7']), io({})).then((r) => r.exitCode, () => -1)) === 7, 'exec through the new tunnel');
  });

  it('metrics count tunnels and streams', async () => {
    const text = await h.metrics();
    assert.match(text, /^edgeplane_site_tunnels 1$/m);
    assert.match(text, /^edgeplane_site_tunnel_upgrades_total\{result="accepted"\} [1-9]/m);
    assert.match(text, /^edgeplane_site_tunnel_streams_total\{kind="exec",result="established"\} [1-9]/m);
    assert.match(text, /^edgeplane_site_tunnel_streams_total\{kind="portforward",result="refused"\} 1$/m);
    // A finished session's stream closes just after its result: the gauge follows.
    await eventually(async () => /^edgeplane_site_tunnel_streams_open\{kind="exec"\} 0$/m.test(await h.metrics()), 'no exec stream open');
  });

  it('a stalled network is noticed by the pings: streams end, the agent dials again', async () => {
    const running = backend().exec(target, exec(['hang']), io({ stdout: collect().writable }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    relay.stalled = true;
    await assert.rejects(running, (e: unknown) => e instanceof StreamError && /was lost/.test(e.message));
    relay.stalled = false;
    relay.cut(); // the stalled connections carry nothing any more
    await eventually(connected, 'the tunnel is back after the stall');
    assert.equal((await backend().exec(target, exec(['exit', '0']), io({}))).exitCode, 0);
  });
});
