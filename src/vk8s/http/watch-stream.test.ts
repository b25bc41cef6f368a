import assert from 'node:assert/strict';
import { Agent, createServer, get, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { ObjectCodec } from '../../registry/object-codec.js';
import type { ClientWatch, KubeWatchSink } from '../../registry/open-watch.js';
import { eventually } from '../../store/testing/watch-helpers.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { findResource } from '../resources.js';
import { type ResourceType } from '../../apimachinery/resource-type.js';
import { streamWatch } from './watch-stream.js';

const configMaps = findResource('', 'v1', 'configmaps') as ResourceType;
const object = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: '5' } });

/** One HTTP server whose requests run `handle`; requests go through one keep-alive socket. */
async function serve(handle: (response: ServerResponse) => Promise<void>): Promise<{ port: number; get: (path: string) => Promise<{ status: number; body: string; socket: unknown }>; close: () => Promise<void> }> {
  const server = createServer((_request, response) => void handle(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get: (path) =>
      new Promise((resolve, reject) => {
        get({ host: '127.0.0.1', port, path, agent }, (res: IncomingMessage) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body, socket: res.socket }));
        }).on('error', reject);
      }),
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('streamWatch', () => {
  it('streamWatch writes one line per event, groups of them and shared chunks included, and ends the response when the watch ends', async () => {
    const codec = new ObjectCodec();
    const shared = codec.decode({ key: '/k/c2', value: JSON.stringify(object('c2')), createRevision: 1, modRevision: 6 });
    const server = await serve((response) =>
      streamWatch(
        response,
        (sink: KubeWatchSink): ClientWatch => {
          sink.event({ type: 'ADDED', object: object('c1') });
          sink.flush();
          setTimeout(() => {
            sink.event({ type: 'MODIFIED', object: shared });
            sink.event({ type: 'BOOKMARK', object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: '7' } } });
            sink.flush();
            sink.end();
          }, 5);
          return { close: () => undefined };
        },
        { resource: configMaps, eventChunk: (type, o) => codec.eventChunk(type, o) },
      ),
    );
    try {
      const first = await server.get('/watch');
      assert.equal(first.status, 200);
      const lines = first.body.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; object: KubeObject });
      assert.deepEqual(lines.map((l) => `${l.type} ${l.object.metadata.name ?? l.object.metadata.resourceVersion ?? ''}`), ['ADDED c1', 'MODIFIED c2', 'BOOKMARK 7']);
      const second = await server.get('/watch');
      assert.equal(second.socket, first.socket, 'the chunked body ended cleanly: the connection was reused');
    } finally {
      await server.close();
    }
  });

  it('streamWatch closes the watch at timeoutSeconds and when the client goes away', async () => {
    let closed = 0;
    let opened = 0;
    const server = await serve((response) =>
      streamWatch(
        response,
        () => {
          opened++;
          return { close: () => void closed++ };
        },
        { resource: configMaps, timeoutSeconds: 0.05 },
      ),
    );
    try {
      const timedOut = await server.get('/watch');
      assert.deepEqual([timedOut.status, timedOut.body, closed], [200, '', 1]);
      const request = get({ host: '127.0.0.1', port: server.port, path: '/watch' });
      request.on('error', () => undefined);
      await eventually(() => opened === 2, 'the second watch');
      request.destroy();
      await eventually(() => closed === 2, 'the watch closed after the client left');
    } finally {
      await server.close();
    }
  });

  it('streamWatch queued behind a pipelined response writes its chunks after it, in order', async () => {
    const server = createServer((request, response) => {
      if (request.url === '/slow') {
        setTimeout(() => response.end('slow body'), 30);
        return;
      }
      void streamWatch(
        response,
        (sink) => {
          sink.event({ type: 'ADDED', object: object('c1') });
          sink.event({ type: 'MODIFIED', object: object('c1') });
          sink.flush();
          setTimeout(() => (sink.event({ type: 'DELETED', object: object('c1') }), sink.flush(), sink.end()), 60);
          return { close: () => undefined };
        },
        { resource: configMaps },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let raw = '';
      socket.setEncoding('latin1');
      socket.on('data', (data: string) => (raw += data));
      socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /watch HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await new Promise((resolve) => socket.on('end', resolve));
      const chunk = (type: string): string => {
        const line = `${JSON.stringify({ type, object: object('c1') })}\n`;
        return `${line.length.toString(16)}\r\n${line}\r\n`;
      };
      const watchBody = raw.slice(raw.indexOf('slow body') + 'slow body'.length);
      assert.match(watchBody, /^HTTP\/1\.1 200 OK\r\n/);
      assert.equal(watchBody.slice(watchBody.indexOf('\r\n\r\n') + 4), `${chunk('ADDED')}${chunk('MODIFIED')}${chunk('DELETED')}0\r\n\r\n`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('streamWatch counts the events a client does not read as backlog, until the socket drains', async () => {
    let sink: KubeWatchSink | undefined;
    const server = await serve((response) =>
      streamWatch(
        response,
        (s) => {
          sink = s;
          return { close: () => undefined };
        },
        { resource: configMaps },
      ),
    );
    try {
      const big = { ...object('big'), data: { blob: 'x'.repeat(64 * 1024) } };
      let response: IncomingMessage | undefined;
      get({ host: '127.0.0.1', port: server.port, path: '/watch' }, (res) => {
        response = res;
        res.pause();
      });
      await eventually(() => sink !== undefined && response !== undefined, 'the watch');
      const watch = sink as KubeWatchSink;
      for (let i = 0; i < 200 && watch.backlog < 3; i++) {
        watch.event({ type: 'MODIFIED', object: big });
        watch.flush();
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.ok(watch.backlog >= 3, `events held while the client does not read (backlog ${watch.backlog})`);
      const drained = watch.drained();
      response?.resume();
      await drained;
      assert.equal(watch.backlog, 0);
      response?.destroy();
    } finally {
      await server.close();
    }
  });
});
