import type { TLSSocket } from 'node:tls';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';

export interface HttpsAppOptions {
  /** Serving certificate; with `clientCa`, clients may present certificates signed by it. */
  readonly tls: { readonly cert: string; readonly key: string; readonly clientCa?: string };
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** Timeouts (default {@link DEFAULT_SERVER_LIMITS}'s). */
  readonly limits?: Pick<ServerLimits, 'readHeaderTimeoutMs' | 'readTimeoutMs' | 'idleTimeoutMs'>;
}

/**
 * What TLS offers: AEAD suites only (TLS 1.3's three, and for TLS 1.2 ECDHE with AES-GCM or
 * ChaCha20-Poly1305), as Mozilla's "intermediate" profile; the CBC suites (e.g.
 * ECDHE-ECDSA-AES128-SHA) node offers by default are left out.
 */
const AEAD_CIPHER_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

/** Routes probed often: logged at debug so they do not drown the request log. */
const QUIET_ROUTES = new Set(['/healthz', '/livez', '/readyz', '/healthz/:check', '/livez/:check', '/readyz/:check', '/metrics']);

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A route that is called routinely (a site's heartbeat) sets `'debug'`: its successful
     * requests are logged at debug, its failures at info as every request's.
     */
    requestLogLevel?: 'debug';
  }
}

/**
 * An HTTPS fastify app as every server of the control plane has it, with no route: the
 * platform's TLS (AEAD suites, TLS 1.2 at least, client certificates asked for but left to the
 * APIs to judge), read timeouts, request metrics and the request log, kube-apiserver's
 * `404 page not found` and a plain-text error answer. `buildHttpServer` (the control plane's
 * listener) and `buildPodApiServer` (the pods' relayed connections) add what they serve.
 */
export function buildHttpsApp(options: HttpsAppOptions): FastifyInstance {
  const { logger, metrics } = options;
  const limits = options.limits ?? DEFAULT_SERVER_LIMITS;
  const app = Fastify({
    https: {
      cert: options.tls.cert,
      key: options.tls.key,
      minVersion: 'TLSv1.2',
      ciphers: AEAD_CIPHER_SUITES,
      // Ask for a client certificate but let requests without one through: the APIs decide.
      ...(options.tls.clientCa === undefined ? {} : { ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: false }),
      ...readTimeouts(limits),
    },
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // node's keep-alive timeout runs only between requests (it adds a second, so that clients,
    // told it in the Keep-Alive header, close first); no socket timeout cuts a response.
    keepAliveTimeout: limits.idleTimeoutMs,
    requestTimeout: limits.readTimeoutMs,
  });

  app.server.prependListener('secureConnection', readThroughStream);
  // node answers 408 and closes the connection (fastify's clientError handler writes it).
  app.server.on('clientError', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') metrics.abuse.readTimeouts.inc();
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const elapsedMs = reply.elapsedTime;
    metrics.httpRequests.inc({ method: request.method, route, code: String(reply.statusCode) });
    metrics.httpDuration.observe({ method: request.method, route }, elapsedMs / 1000);
    const routine = request.routeOptions.config.requestLogLevel === 'debug' && reply.statusCode < 400;
    const level = QUIET_ROUTES.has(route) || routine ? 'debug' : 'info';
    if (logger.isLevelEnabled(level)) {
      logger[level]({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(elapsedMs * 100) / 100, remote: request.ip }, 'request');
    }
    done();
  });

  app.setNotFoundHandler((_request, reply) => {
    // kube-apiserver answers unknown paths like this (Go's default 404).
    void reply.code(404).type('text/plain; charset=utf-8').send('404 page not found\n');
  });

  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600 ? error.statusCode : 500;
    if (status >= 500) logger.error({ err: error, url: request.url }, 'request failed');
    void reply
      .code(status)
      .type('text/plain; charset=utf-8')
      .send(status >= 500 ? 'internal server error\n' : `${error.message ?? 'bad request'}\n`);
  });
  return app;
}

/**
 * node's read timeouts (http.Server): `headersTimeout` and `requestTimeout` count from a
 * request's first byte (from the end of the TLS handshake for a connection's first request,
 * so a connection that sends nothing is closed too) until its headers, respectively its whole
 * body, are in; a request whose body is in is no longer timed, so responses (watches, log
 * follows) are not cut, nor are upgraded connections (exec, port-forward), which leave the
 * HTTP parser. node checks them every `connectionsCheckingInterval` (default 30 s): a quarter
 * of the shorter timeout here, between 100 ms and 1 s. The TLS handshake gets the header timeout.
 */
function readTimeouts(limits: Pick<ServerLimits, 'readHeaderTimeoutMs' | 'readTimeoutMs'>): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number; handshakeTimeout: number } {
  const shorter = Math.min(limits.readHeaderTimeoutMs, limits.readTimeoutMs);
  return {
    headersTimeout: limits.readHeaderTimeoutMs,
    requestTimeout: limits.readTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, Math.max(100, Math.floor(shorter / 4))),
    handshakeTimeout: limits.readHeaderTimeoutMs,
  };
}

/**
 * Makes node's HTTP parser read a TLS connection through its stream instead of consuming the
 * TLS handle natively. With the native path, a request that arrives while the previous
 * response is still draining pauses the parser, yet the TLS layer keeps handing it records it
 * has already decrypted: the parser fails with HPE_PAUSED and node closes the connection
 * without an answer (sequential keep-alive creates of 20–64 KiB lost 11–38 % of their
 * answers; node's own plain-TCP path is not affected). Through the stream, pausing holds.
 * Must run before the HTTP server's own `secureConnection` listener.
 */
function readThroughStream(socket: TLSSocket): void {
  const handle = (socket as TLSSocket & { _handle?: { _consumed?: boolean } | null })._handle;
  if (handle !== null && handle !== undefined) handle._consumed = true;
}
