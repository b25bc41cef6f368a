/**
 * The helper the agent starts inside a network namespace (`ip netns exec <ns> node this`):
 * it opens sockets there — listens or dials as asked — and hands each one to the agent over
 * the IPC channel, then forgets it. Sockets stay in the namespace they were made in, so the
 * agent serves and connects inside site and pod networks while it runs in the host's.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { BrokerReply, BrokerRequest } from './netns-broker-protocol.js';

const send = (reply: BrokerReply, handle?: Server | Socket): void => {
  process.send?.(reply, handle);
};

const failure = (id: number, error: unknown): BrokerReply => {
  const cause = error as NodeJS.ErrnoException;
  return { id, ok: false, code: cause.code ?? 'EUNKNOWN', message: cause.message };
};

function dial(request: Extract<BrokerRequest, { op: 'dial' }>): void {
  const socket = createConnection({ host: request.host, port: request.port });
  const timer = setTimeout(() => socket.destroy(Object.assign(new Error(`connect ${request.host}:${request.port} timed out`), { code: 'ETIMEDOUT' })), request.timeoutMs);
  socket.once('connect', () => {
    clearTimeout(timer);
    socket.pause();
    send({ id: request.id, ok: true }, socket);
  });
  socket.once('error', (error) => {
    clearTimeout(timer);
    send(failure(request.id, error));
  });
}

function listen(request: Extract<BrokerRequest, { op: 'listen' }>): void {
  const server = createServer();
  server.once('error', (error) => send(failure(request.id, error)));
  server.listen({ host: request.host, port: request.port, exclusive: true }, () => {
    process.send?.({ id: request.id, ok: true } satisfies BrokerReply, server, {}, () => server.close());
  });
}

process.on('message', (request: BrokerRequest) => (request.op === 'dial' ? dial(request) : listen(request)));
process.on('disconnect', () => process.exit(0));
send({ ready: true });
