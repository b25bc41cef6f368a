import type { IncomingHttpHeaders } from 'node:http';
import type { SidecarStateName } from './sidecar-state.js';
import type { SidecarView } from './sidecar-view.js';

/** What an endpoint is given: the request as read, nothing of the HTTP server behind it. */
export interface SidecarRequest {
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  /** The route's `:name` parameters. */
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly headers: IncomingHttpHeaders;
  /** The whole body (empty when none was sent), already within the server's limit. */
  readonly body: Buffer;
}

/** What an endpoint answers; the server writes it (and leaves the body out for HEAD). */
export interface SidecarResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * One endpoint of the sidecar's HTTP API: a function from the request (and the sidecar's
 * state) to the response. The server registers a list of them; which methods a path allows
 * (405 with `Allow`) and the list of endpoints in 404 messages derive from that list, so a
 * new endpoint (`POST /secret/unseal`) is one more entry and nothing else.
 */
export interface SidecarEndpoint {
  readonly method: 'GET' | 'POST';
  /** A route pattern (`RouteTable`: `:name` matches one segment), e.g. `/trust/pki/:bundle`. */
  readonly url: string;
  /** How the 404 message lists it, e.g. `/trust/pki/{server_ca|client_ca}`. */
  readonly display: string;
  handle(request: SidecarRequest, view: SidecarView): SidecarResponse | Promise<SidecarResponse>;
}

export const TEXT = 'text/plain; charset=utf-8';
export const PEM = 'application/x-pem-file';

/** A plain-text answer (every answer but PEM documents is one). */
export function textResponse(status: number, body: string, headers: Readonly<Record<string, string>> = {}): SidecarResponse {
  return { status, headers: { ...headers, 'content-type': TEXT, 'x-content-type-options': 'nosniff' }, body };
}

/** The 503 of anything that needs READY (or DEGRADED), in the platform's words. */
export function notReadyResponse(state: SidecarStateName, headers: Readonly<Record<string, string>> = {}): SidecarResponse {
  return textResponse(503, `edgeplane sidecar is still not ready, current status => ${state}, please retry after some time\n`, headers);
}
