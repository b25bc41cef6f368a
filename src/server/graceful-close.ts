import type { Server } from 'node:net';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';

/** Every connection of `server` still open, upgraded ones (tunnels, exec, relays) too: what a stop past its timeout cuts. */
export function openConnections(server: Server): ReadonlySet<Socket> {
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return open;
}

/**
 * Closes `app` within `timeoutMs`: it stops accepting at once, its preClose hooks end the
 * watches and long polls (answered, so clients poll or watch again), and ordinary requests
 * get until the timeout to finish; then every connection still open is cut (kube-apiserver's
 * --shutdown-delay and request timeout, in one bound). Resolves when the server is closed.
 */
export async function closeWithin(app: FastifyInstance, connections: ReadonlySet<Socket>, timeoutMs: number, logger: Logger): Promise<void> {
  const closed = app.close();
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    closed.then(() => false),
    new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (!late) return;
  logger.warn({ connections: connections.size, timeoutMs }, 'shutdown timeout reached: closing the connections still open');
  for (const socket of connections) socket.destroy();
  await closed;
}
