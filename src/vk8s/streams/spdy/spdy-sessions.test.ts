import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import transport from 'spdy-transport';
import { SPDY_REMOTE_COMMAND } from '../protocols.js';
import { ScriptedPodBackend } from '../testing/scripted-pod-backend.js';
import { startEchoServer } from '../testing/tcp-echo.js';
import type { PodTarget } from '../types.js';
import { serveSpdyPortForward } from './spdy-port-forward.js';
import { serveSpdyRemoteCommand } from './spdy-remote-command.js';

/** The client side of spdy-transport, as these tests use it (Go's client is what kubectl uses). */
interface ClientConnection {
  start(version: number): void;
  request(options: { method: string; path: string; host: string; headers: Record<string, string> }): Duplex;
  on(event: 'error', listener: () => void): void;
}

const target: PodTarget = { tenant: 't', namespace: 'ns', vk8s: 'vk', pod: 'p', uid: 'u1', container: 'c' };
const timing = { streamCreationTimeoutMs: 300, closeGraceMs: 100 };

async function readAll(stream: Duplex): Promise<string> {
  let text = '';
  stream.resume();
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  await new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
  });
  return text;
}

describe('SPDY sessions', () => {
  let echo: Awaited<ReturnType<typeof startEchoServer>>;
  let server: Server;
  let serve: (socket: Socket) => Promise<void>;
  const sessions: Array<Promise<void>> = [];

  before(async () => {
    echo = await startEchoServer();
    server = createServer((socket) => sessions.push(serve(socket)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    server.close();
    await echo.close();
  });

  async function client(): Promise<{ connection: ClientConnection; socket: Socket }> {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    const connection = transport.connection.create(socket, { protocol: 'spdy', isServer: false }) as unknown as ClientConnection;
    connection.on('error', () => undefined);
    connection.start(3.1);
    return { connection, socket };
  }

  /** Opens a stream and waits for its reply, as Go's client does (one stream at a time). */
  const open = async (connection: ClientConnection, headers: Record<string, string>): Promise<Duplex> => {
    const stream = connection.request({ method: 'POST', path: '/', host: 'localhost', headers });
    stream.on('error', () => undefined);
    await once(stream, 'response');
    return stream;
  };

  it('port-forward pairs streams by request id, or by stream id without one, and reports failures on the error stream', async () => {
    const backend = new ScriptedPodBackend({ 80: echo.port });
    serve = (socket) => serveSpdyPortForward(socket, Buffer.alloc(0), target, backend, { timing, onError: () => undefined });
    const { connection, socket } = await client();

    const error1 = await open(connection, { streamtype: 'error', port: '80', requestid: '1' });
    const data1 = await open(connection, { streamtype: 'data', port: '80', requestid: '1' });
    data1.end('ping');
    assert.deepEqual(await Promise.all([readAll(data1), readAll(error1)]), ['ping', '']);

    await open(connection, { streamtype: 'error', port: '80' });
    const data2 = await open(connection, { streamtype: 'data', port: '80' });
    data2.end('no request id');
    assert.equal(await readAll(data2), 'no request id');

    const error3 = await open(connection, { streamtype: 'error', port: '81', requestid: '3' });
    await open(connection, { streamtype: 'data', port: '81', requestid: '3' });
    assert.equal(await readAll(error3), 'error forwarding port 81 to pod p_ns, uid u1: dial tcp4 127.0.0.1:81: connect: connection refused');

    const error4 = await open(connection, { streamtype: 'error', port: '80', requestid: '4' });
    await open(connection, { streamtype: 'bogus', port: '80', requestid: '4' });
    assert.equal(await readAll(error4), 'error processing stream for request 4: invalid stream type "bogus"');

    const error5 = await open(connection, { streamtype: 'error', port: '80', requestid: '5' });
    assert.equal(await readAll(error5), 'timed out waiting for streams for request 5');
    socket.destroy();
    await sessions.at(-1);
  });

  it('exec closes the connection when the client does not open the streams it announced', async () => {
    const backend = new ScriptedPodBackend();
    const protocol = SPDY_REMOTE_COMMAND[0];
    assert.ok(protocol !== undefined);
    const command = { kind: 'exec', target, options: { container: 'c', command: ['echo', 'x'], stdin: false, stdout: true, stderr: true, tty: false } } as const;
    serve = (socket) => serveSpdyRemoteCommand(socket, Buffer.alloc(0), command, backend, { protocol, timing, onError: () => undefined });
    const { connection, socket } = await client();
    await open(connection, { streamtype: 'error' });
    await open(connection, { streamtype: 'stdout' });
    await new Promise((resolve) => socket.once('close', resolve));
    assert.equal(backend.calls.length, 0, 'the command never ran');
  });

  it('exec ends stdout, then reports a non-zero exit as the v4 status on the error stream', async () => {
    const backend = new ScriptedPodBackend();
    const protocol = SPDY_REMOTE_COMMAND[0];
    assert.ok(protocol !== undefined);
    const command = { kind: 'exec', target, options: { container: 'c', command: ['exit', '2'], stdin: false, stdout: true, stderr: false, tty: false } } as const;
    serve = (socket) => serveSpdyRemoteCommand(socket, Buffer.alloc(0), command, backend, { protocol, timing, onError: () => undefined });
    const { connection, socket } = await client();
    const error = await open(connection, { streamtype: 'error' });
    const stdout = await open(connection, { streamtype: 'stdout' });
    stdout.end();
    error.end();
    const [out, status] = await Promise.all([readAll(stdout), readAll(error)]);
    assert.equal(out, '');
    assert.deepEqual((JSON.parse(status) as { reason: string; details: unknown }).details, { causes: [{ reason: 'ExitCode', message: '2' }] });
    socket.destroy();
  });
});
