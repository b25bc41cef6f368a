import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';
import { credentialsEndpoint, trustEndpoint } from './credential-endpoints.js';
import { type SidecarEndpoint, sendText } from './sidecar-endpoint.js';
import type { SidecarView } from './sidecar-view.js';
import { statusEndpoint } from './status-endpoint.js';

/** The seed's status and identity endpoints (`startSidecar` appends `POST /secret/unseal`). */
export const IDENTITY_ENDPOINTS: readonly SidecarEndpoint[] = [statusEndpoint, credentialsEndpoint, trustEndpoint];

export interface SidecarAppOptions {
  readonly view: SidecarView;
  readonly logger: Logger;
  /** Default `IDENTITY_ENDPOINTS`. */
  readonly endpoints?: readonly SidecarEndpoint[];
  /** Largest request body accepted, in bytes (default 1 MiB). */
  readonly bodyLimit?: number;
}

/** `/creds/pki/:role/:form` → a regular expression matching the paths the route serves. */
function patternOf(url: string): RegExp {
  const escaped = url.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${escaped.join('/')}$`);
}

/** The methods each route pattern answers (GET brings HEAD, as fastify serves it). */
function allowedMethods(endpoints: readonly SidecarEndpoint[]): Array<{ pattern: RegExp; allow: string[] }> {
  const byUrl = new Map<string, Set<string>>();
  for (const e of endpoints) {
    const methods = byUrl.get(e.url) ?? new Set<string>();
    methods.add(e.method);
    if (e.method === 'GET') methods.add('HEAD');
    byUrl.set(e.url, methods);
  }
  return [...byUrl].map(([url, methods]) => ({ pattern: patternOf(url), allow: [...methods] }));
}

/**
 * The sidecar's HTTP API as a fastify instance (not listening: `serveOnLoopback` binds it).
 * No credential is asked for: reachability (loopback inside the pod) is the access control.
 * Unknown paths answer 404 listing the endpoints; a known path with another method 405 with
 * `Allow`. Requests are logged at debug (when the logger is at debug when the app is built) with method,
 * path and status only.
 */
export function buildSidecarApp(options: SidecarAppOptions): FastifyInstance {
  const { view, logger } = options;
  const endpoints = options.endpoints ?? IDENTITY_ENDPOINTS;
  const app = Fastify({ logger: false, bodyLimit: options.bodyLimit ?? 1024 * 1024 });
  // Endpoints get request bodies as bytes, whatever the content type, and check it themselves
  // (the unseal endpoint answers 415 in its own words).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  for (const endpoint of endpoints) app.route({ method: endpoint.method, url: endpoint.url, handler: (request, reply) => endpoint.handle(request, reply, view) });

  const methods = allowedMethods(endpoints);
  const listing = endpoints.map((e) => `${e.method} ${e.display}`).join(', ');
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const route = methods.find((m) => m.pattern.test(path));
    if (route !== undefined) {
      const allow = route.allow.join(', ');
      return sendText(reply.header('allow', allow), 405, `method ${request.method} is not allowed on ${path}: allowed ${allow}\n`);
    }
    return sendText(reply, 404, `404 page not found: ${path}; the endpoints are ${listing}\n`);
  });

  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) logger.error({ err: error, method: request.method, path: request.url.split('?')[0] }, 'sidecar request failed');
    return sendText(reply, status, status === 500 ? 'internal error of the edgeplane sidecar\n' : `${error.message ?? 'bad request'}\n`);
  });

  // The per-request log line exists only at debug; below that the hook is not installed at
  // all, so the cache-hit path does not pay for a hook call per request.
  if (logger.isLevelEnabled('debug')) {
    app.addHook('onResponse', (request, reply, done) => {
      logger.debug({ method: request.method, path: request.url.split('?')[0], status: reply.statusCode }, 'sidecar request');
      done();
    });
  }
  return app;
}
