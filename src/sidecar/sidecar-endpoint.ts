import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SidecarStateName } from './sidecar-state.js';
import type { SidecarView } from './sidecar-view.js';

/**
 * One endpoint of the sidecar's HTTP API. The server registers a list of them; which methods a
 * path allows (405 with `Allow`) and the list of endpoints in 404 messages derive from that list,
 * so a new endpoint (issue 7's `POST /secret/unseal`) is one more entry and nothing else.
 */
export interface SidecarEndpoint {
  readonly method: 'GET' | 'POST';
  /** A fastify route pattern, e.g. `/trust/pki/:bundle`. */
  readonly url: string;
  /** How the 404 message lists it, e.g. `/trust/pki/{server_ca|client_ca}`. */
  readonly display: string;
  handle(request: FastifyRequest, reply: FastifyReply, view: SidecarView): FastifyReply | Promise<FastifyReply>;
}

export const TEXT = 'text/plain; charset=utf-8';
export const PEM = 'application/x-pem-file';

/** A plain-text answer (every answer but PEM documents is one). */
export function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('x-content-type-options', 'nosniff').type(TEXT).send(body);
}

/** The 503 of anything that needs READY (or DEGRADED), in the platform's words. */
export function sendNotReady(reply: FastifyReply, state: SidecarStateName): FastifyReply {
  return sendText(reply, 503, `edgeplane sidecar is still not ready, current status => ${state}, please retry after some time\n`);
}
