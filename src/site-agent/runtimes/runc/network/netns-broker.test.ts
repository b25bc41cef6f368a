import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, type Server, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { toolPath } from '../../../../testing/tools.js';
import { NetnsSocketBroker, NetnsSocketError } from './netns-broker.js';

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

const readAll = (socket: Socket): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk)).on('end', () => resolve(text)).on('error', reject);
    socket.resume();
  });

test('the agent serves and dials inside a namespace it does not run in', async () => {
  const server: Server = await broker.listen('127.0.0.1', 0);
  server.on('connection', (socket) => socket.end('from the namespace\n'));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  const socket = await broker.dial('127.0.0.1', address.port);
  assert.equal(await readAll(socket), 'from the namespace\n');

  // The same port on the host's loopback is another network: nothing listens there.
  await assert.rejects(
    new Promise((resolve, reject) => connect(address.port, '127.0.0.1').on('connect', resolve).on('error', reject)),
    (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED',
  );
  server.close();
});

test('a refused dial inside the namespace is reported with its code, and the broker keeps working', async () => {
  await assert.rejects(broker.dial('127.0.0.1', 1), (error: unknown) => error instanceof NetnsSocketError && error.code === 'ECONNREFUSED');
  const server = await broker.listen('127.0.0.1', 0);
  server.close();
});

test('a broker for a namespace that does not exist fails with the helper\'s reason', async () => {
  const missing = new NetnsSocketBroker(ip, `${netns}-missing`);
  await assert.rejects(missing.dial('127.0.0.1', 80), (error: unknown) => error instanceof NetnsSocketError && error.code === 'EHELPER' && /exited/.test(error.message));
  missing.close();
});
