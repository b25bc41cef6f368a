import { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { UpgradeListener } from './pod-stream-upgrades.js';

/**
 * Serves an upgrade request that no stream endpoint takes as an ordinary request of `app`,
 * the way kube-apiserver (Go's HTTP server) ignores `Upgrade` headers its handlers do not act
 * on: the answer is written on the socket, which is closed after it. Node has consumed the
 * request's body as the upgrade's first bytes, so the routes see none (a body is answered as
 * a `Content-Length` mismatch).
 */
export function routeUpgradeRequest(app: FastifyInstance): UpgradeListener {
  return (request, socket) => {
    const response = new ServerResponse(request);
    response.shouldKeepAlive = false;
    response.assignSocket(socket as Socket);
    response.once('finish', () => {
      response.detachSocket(socket as Socket);
      socket.end();
    });
    app.routing(request, response);
  };
}
