import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { describe, it } from 'node:test';
import { admitConnection, guardConnections, type ConnectionRejection } from './connection-guard.js';

describe('admitConnection', () => {
  const caps = { maxConnections: 10, maxConnectionsPerAddress: 3 };
  it('admits below both caps', () => assert.equal(admitConnection(9, 2, caps), undefined));
  it('refuses at the server cap, then at the address cap', () => {
    assert.equal(admitConnection(10, 0, caps), 'server');
    assert.equal(admitConnection(5, 3, caps), 'address');
  });
});

/** Connects from `localAddress` and resolves to whether the server kept the connection open (it answers each byte with one). */
function kept(port: number, localAddress: string, sockets: Socket[]): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => socket.write('x'));
    sockets.push(socket);
    socket.once('data', () => resolve(true));
    socket.once('error', () => resolve(false));
    socket.once('close', () => resolve(false));
  });
}

describe('guardConnections', () => {
  it('closes connections over the cap per address and the server cap, and counts them free again when they close', async () => {
    const server = createServer((socket) => socket.on('data', () => socket.write('y')));
    const rejected: ConnectionRejection[] = [];
    const opens: number[] = [];
    guardConnections(server, { maxConnections: 4, maxConnectionsPerAddress: 2 }, { open: (n) => opens.push(n), rejected: (r) => rejected.push(r) });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const sockets: Socket[] = [];
    try {
      const fromTwo = [await kept(port, '127.0.0.2', sockets), await kept(port, '127.0.0.2', sockets), await kept(port, '127.0.0.2', sockets)];
      assert.deepEqual(fromTwo, [true, true, false], 'the third from one address is closed');
      assert.deepEqual([await kept(port, '127.0.0.1', sockets), await kept(port, '127.0.0.3', sockets)], [true, true], 'other addresses are served');
      assert.equal(await kept(port, '127.0.0.4', sockets), false, 'four are open: the server cap');
      assert.deepEqual(rejected, ['address', 'server']);
      sockets[0]?.destroy();
      await new Promise((resolve) => sockets[0]?.once('close', resolve));
      for (let i = 0; i < 50 && opens.at(-1) !== 3; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(await kept(port, '127.0.0.2', sockets), true, 'a closed connection frees its place, in all and for its address');
      assert.equal(opens.at(-1), 4);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
