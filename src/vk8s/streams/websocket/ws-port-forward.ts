import { createWebSocketStream } from 'ws';
import type WebSocket from 'ws';
import { forwardConnection } from '../port-forward-connection.js';
import type { ChannelProtocol } from '../protocols.js';
import type { SessionTiming } from '../session-timing.js';
import { serveSpdyPortForward } from '../spdy/spdy-port-forward.js';
import type { PodStreamBackend, PodTarget } from '../types.js';
import { ChannelSocket } from './channel-socket.js';

/**
 * port-forward over WebSocket channels (kubelet's `websocketStreamHandler`): one connection
 * per requested port, for the life of the socket. Port i uses channel 2i for data and 2i+1
 * for error text; the first frame on each carries the port (2 bytes, little-endian). The
 * socket closes once every port's connection is over; the client closing it ends them.
 */
export async function serveWebSocketPortForward(
  ws: WebSocket,
  ports: readonly number[],
  target: PodTarget,
  backend: PodStreamBackend,
  setup: { readonly protocol: ChannelProtocol; readonly timing: SessionTiming; readonly onError: (error: Error) => void },
): Promise<void> {
  const socket = new ChannelSocket(ws, setup.protocol.base64);
  ws.on('error', setup.onError);
  const channels = ports.map((port, i) => {
    const data = socket.duplex(2 * i);
    const error = socket.writer(2 * i + 1);
    return { port, data, error };
  });
  socket.onFrame(({ channel, data }) => {
    if (channel % 2 === 0) channels[channel / 2]?.data.receive(data);
  });
  void socket.closed.then(() => {
    for (const { data } of channels) data.stream.destroy();
  });
  await Promise.all(
    channels.map(async ({ port }, i) => {
      const prefix = Buffer.alloc(2);
      prefix.writeUInt16LE(port);
      await socket.send(2 * i, prefix);
      await socket.send(2 * i + 1, prefix);
    }),
  );
  await Promise.all(channels.map(({ port, data, error }) => forwardConnection(backend, target, port, { data: data.stream, error })));
  await socket.close(setup.timing.closeGraceMs);
}

/**
 * kubectl ≥ 1.31 tunnels the SPDY port-forward protocol through a WebSocket
 * (`SPDY/3.1+portforward.k8s.io`): the SPDY bytes travel as binary messages.
 */
export async function serveTunneledPortForward(
  ws: WebSocket,
  target: PodTarget,
  backend: PodStreamBackend,
  setup: { readonly timing: SessionTiming; readonly onError: (error: Error) => void },
): Promise<void> {
  ws.on('error', setup.onError);
  const tunnel = createWebSocketStream(ws);
  tunnel.on('error', setup.onError);
  await serveSpdyPortForward(tunnel, Buffer.alloc(0), target, backend, setup);
}
