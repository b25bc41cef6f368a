import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { LevelLogger } from '../observability/line-logger.js';
import { credentialsEndpoint, trustEndpoint } from './credential-endpoints.js';
import { isLoopbackHost } from './loopback-host.js';
import { RouteTable } from './route-table.js';
import { type SidecarEndpoint, type SidecarRequest, type SidecarResponse, textResponse } from './sidecar-endpoint.js';
import type { SidecarView } from './sidecar-view.js';
import { statusEndpoint } from './status-endpoint.js';

/** The seed's status and identity endpoints (`startSidecar` appends `POST /secret/unseal`). */
export const IDENTITY_ENDPOINTS: readonly SidecarEndpoint[] = [statusEndpoint, credentialsEndpoint, trustEndpoint];

export interface SidecarAppOptions {
  readonly view: SidecarView;
  readonly logger: LevelLogger;
  /** Default `IDENTITY_ENDPOINTS`. */
  readonly endpoints?: readonly SidecarEndpoint[];
  /** Largest request body accepted, in bytes (default 1 MiB). */
  readonly bodyLimit?: number;
}

/** The methods the API can route, in the order `Allow` lists them; GET brings HEAD. */
const ROUTED_METHODS: readonly string[] = ['GET', 'HEAD', 'POST'];
const EMPTY = Buffer.alloc(0);

/**
 * Writes `response` (Content-Length always set, so no chunked framing; node drops the body of
 * a HEAD answer). The headers go to node as a flat [name, value, …] list: an object spread
 * per request (`{...headers, 'content-length': n}`) measured 20 % of the cache-hit path's
 * requests per second.
 */
function write(res: ServerResponse, response: SidecarResponse): void {
  const headers = ['content-length', String(Buffer.byteLength(response.body))];
  for (const name in response.headers) headers.push(name, response.headers[name] as string);
  res.writeHead(response.status, headers);
  res.end(response.body);
}

/**
 * Reads the whole body, up to `limit` bytes. `done(undefined)` when it is larger: a declared
 * Content-Length over the limit is refused before anything is read.
 */
function readBody(req: IncomingMessage, limit: number, done: (body: Buffer | undefined) => void): void {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return done(undefined);
  if (declared === 0 && req.headers['transfer-encoding'] === undefined) {
    req.resume();
    return done(EMPTY);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    if (over) return;
    size += chunk.length;
    if (size > limit) {
      over = true;
      done(undefined);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (!over) done(chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks, size));
  });
}

/**
 * The sidecar's HTTP API as a node:http request listener (`serveOnLoopback` binds it), routed
 * by `RouteTable`, without fastify's request/reply layer: on the cache-hit
 * path of `POST /secret/unseal` that layer cost about 40 % of the requests per second
 * (`npm run bench -- unseal`; see docs/SIDECAR.md). No credential is asked for: reachability
 * (loopback inside the pod) is the access control, and a `Host` that is not a loopback name
 * answers 403 (a DNS-rebinding guard: see `isLoopbackHost`). Unknown paths answer 404 listing the
 * endpoints; a known path with another method 405 with `Allow`; a body over the limit 413;
 * an endpoint that throws 500 (logged, the message not sent). Requests are logged at debug
 * (when the logger is at debug when the app is built) with method, path and status only.
 */
export function buildSidecarApp(options: SidecarAppOptions): RequestListener {
  const { view, logger } = options;
  const endpoints = options.endpoints ?? IDENTITY_ENDPOINTS;
  const bodyLimit = options.bodyLimit ?? 1024 * 1024;
  const router = new RouteTable<SidecarEndpoint>();
  for (const endpoint of endpoints) {
    router.add(endpoint.method, endpoint.url, endpoint);
    if (endpoint.method === 'GET') router.add('HEAD', endpoint.url, endpoint);
  }
  const listing = endpoints.map((e) => `${e.method} ${e.display}`).join(', ');
  const debug = logger.isLevelEnabled('debug');

  const unrouted = (method: string, path: string): SidecarResponse => {
    const allow = ROUTED_METHODS.filter((m) => router.find(m, path) !== null).join(', ');
    if (allow === '') return textResponse(404, `404 page not found: ${path}; the endpoints are ${listing}\n`);
    return textResponse(405, `method ${method} is not allowed on ${path}: allowed ${allow}\n`, { allow });
  };
  const internal = (error: unknown, method: string, path: string): SidecarResponse => {
    logger.error({ err: error, method, path }, 'sidecar request failed');
    return textResponse(500, 'internal error of the edgeplane sidecar\n');
  };

  return (req, res) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    const send = (response: SidecarResponse): void => {
      write(res, response);
      if (debug) logger.debug({ method, path, status: response.status }, 'sidecar request');
    };
    if (!isLoopbackHost(req.headers.host)) {
      req.resume();
      return send(textResponse(403, `the edgeplane sidecar answers only requests for a loopback host (127.0.0.1, localhost, [::1]), not "${req.headers.host ?? ''}"\n`));
    }
    const found = ROUTED_METHODS.includes(method) ? router.find(method, path) : null;
    if (found === null) {
      req.resume();
      return send(unrouted(method, path));
    }
    const endpoint = found.value;
    readBody(req, bodyLimit, (body) => {
      if (body === undefined) {
        res.shouldKeepAlive = false; // the rest of the body is not read: this connection ends here
        return send(textResponse(413, `the request body is larger than ${bodyLimit} bytes\n`, { connection: 'close' }));
      }
      const request: SidecarRequest = { method, path, params: found.params, headers: req.headers, body };
      let answer: SidecarResponse | Promise<SidecarResponse>;
      try {
        answer = endpoint.handle(request, view);
      } catch (error) {
        return send(internal(error, method, path));
      }
      if (answer instanceof Promise) answer.then(send, (error: unknown) => send(internal(error, method, path)));
      else send(answer);
    });
  };
}
