import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../../observability/logger.js';
import { admitRelayed, ControlPlaneRelay } from './control-plane-relay.js';

/** A connection to the relay from `localAddress` (any 127.x address is the machine's own: each stands for a pod). */
function openFrom(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends `text` and resolves with what came back before `ms` passed or the connection closed. */
function exchange(socket: Socket, text: string, ms = 300): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      resolve(received);
    };
    const onData = (chunk: Buffer): void => {
      received += chunk.toString();
      if (received.length >= text.length) done();
    };
    const timer = setTimeout(done, ms);
    socket.on('data', onData);
    socket.once('close', done);
    socket.write(text, () => undefined);
  });
}

describe('the control plane relay on a site gateway', () => {
  let echo: Server;
  let listening: Server | undefined;
  const logger = createLogger({ level: 'silent' });
  /** A broker that listens on a free port of 127.0.0.1 instead of the gateway's 8443. */
  const broker = {
    listen: async (): Promise<Server> => {
      const server = createServer({ pauseOnConnect: false });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      listening = server;
      return server;
    },
  };
  const portOf = (): number => (listening?.address() as AddressInfo).port;
  const dialEcho = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect((echo.address() as AddressInfo).port, '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
    });

  before(async () => {
    echo = createServer((socket) => socket.on('error', () => undefined).pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  });
  after(() => echo.close());

  it('admits a connection while the pod and the site are under their caps (pure)', () => {
    const caps = { perPod: 2, perSite: 3 };
    assert.deepEqual([admitRelayed(0, 0, caps), admitRelayed(2, 1, caps), admitRelayed(2, 2, caps), admitRelayed(3, 0, caps)], [true, true, false, false]);
  });

  it('pipes each pod connection into a dialled one; over the per-pod or per-site cap a connection is closed unanswered', async () => {
    const relay = new ControlPlaneRelay(broker, dialEcho, logger, { perPod: 2, perSite: 3 });
    await relay.listen('10.244.0.1');
    const open: Socket[] = [];
    try {
      for (const _ of [1, 2]) {
        const socket = await openFrom(portOf(), '127.0.0.1');
        open.push(socket);
        assert.equal(await exchange(socket, 'hello'), 'hello');
      }
      const third = await openFrom(portOf(), '127.0.0.1');
      assert.equal(await exchange(third, 'over the pod cap'), '', 'a third connection of one pod was relayed');
      const other = await openFrom(portOf(), '127.0.0.2');
      open.push(other);
      assert.equal(await exchange(other, 'another pod'), 'another pod');
      const fourth = await openFrom(portOf(), '127.0.0.3');
      assert.equal(await exchange(fourth, 'over the site cap'), '', 'a fourth connection of the site was relayed');
      // A connection that ends frees its place (once the relay has seen it close).
      open.shift()?.destroy();
      let answer = '';
      for (let attempt = 0; attempt < 20 && answer === ''; attempt++) {
        const again = await openFrom(portOf(), '127.0.0.1');
        open.push(again);
        answer = await exchange(again, 'again', 100);
      }
      assert.equal(answer, 'again');
    } finally {
      for (const socket of open) socket.destroy();
      relay.close();
    }
  });

  it('closes the pod connection when the control plane cannot be reached', async () => {
    const relay = new ControlPlaneRelay(broker, () => Promise.reject(new Error('connect ECONNREFUSED')), logger);
    await relay.listen('10.244.0.1');
    try {
      const socket = await openFrom(portOf(), '127.0.0.1');
      assert.equal(await exchange(socket, 'anyone?', 2000), '');
      assert.equal(socket.readableEnded || socket.destroyed, true);
    } finally {
      relay.close();
    }
  });
});
