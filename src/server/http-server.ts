import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import { guardConnections } from './connection-guard.js';
import { type HealthCheck, type HealthEndpoint, renderReport, runChecks } from './health.js';
import { buildHttpsApp } from './https-app.js';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';

export interface HttpServerOptions {
  /** Serving certificate; with `clientCa`, clients may present certificates signed by it. */
  readonly tls: { readonly cert: string; readonly key: string; readonly clientCa?: string };
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly checks: Readonly<Record<HealthEndpoint, readonly HealthCheck[]>>;
  readonly version: Readonly<Record<string, string>>;
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** Per-check timeout of the health endpoints. Default 5 s. */
  readonly checkTimeoutMs?: number;
  /** Timeouts and connection caps (default {@link DEFAULT_SERVER_LIMITS}'s). */
  readonly limits?: Pick<ServerLimits, 'readHeaderTimeoutMs' | 'readTimeoutMs' | 'idleTimeoutMs' | 'maxConnections' | 'maxConnectionsPerAddress'>;
}

/**
 * The control plane's HTTPS server with the routes every process has: health, version and
 * metrics, and the connection caps. The APIs (config, vK8s, identity) register their routes on it.
 */
export function buildHttpServer(options: HttpServerOptions): FastifyInstance {
  const { logger, metrics } = options;
  const limits = options.limits ?? DEFAULT_SERVER_LIMITS;
  const app = buildHttpsApp({ tls: options.tls, logger, metrics, limits, ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }) });
  guardConnections(app.server, limits, {
    open: (open) => metrics.abuse.connectionsOpen.set(open),
    rejected: (reason) => metrics.abuse.connectionsRejected.inc({ reason }),
  });

  const timeoutMs = options.checkTimeoutMs ?? 5000;
  for (const endpoint of ['healthz', 'livez', 'readyz'] as const) {
    const checks = options.checks[endpoint];
    app.get(`/${endpoint}`, async (request, reply) => {
      const query = request.query as Record<string, string | string[] | undefined>;
      const exclude = new Set([query['exclude'] ?? []].flat());
      const unknownExcludes = [...exclude].filter((name) => !checks.some((c) => c.name === name));
      const results = await runChecks(checks, exclude, timeoutMs);
      const report = renderReport(endpoint, results, { verbose: 'verbose' in query, unknownExcludes });
      for (const failure of report.failures) logger.warn({ check: failure.name, reason: failure.reason }, `${endpoint} check failed`);
      return sendText(reply, report.statusCode, report.body);
    });
    app.get(`/${endpoint}/:check`, async (request: FastifyRequest<{ Params: { check: string } }>, reply) => {
      const check = checks.find((c) => c.name === request.params.check);
      if (check === undefined) return sendText(reply, 404, '404 page not found\n');
      const [result] = await runChecks([check], new Set(), timeoutMs);
      return result?.status === 'failed'
        ? sendText(reply, 500, `internal server error: ${result.reason ?? 'unknown'}\n`)
        : sendText(reply, 200, 'ok');
    });
  }

  app.get('/version', (_request, reply) => reply.type('application/json').send(JSON.stringify(options.version, null, 2) + '\n'));

  app.get('/metrics', async (_request, reply) => {
    const body = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(body);
  });

  return app;
}

function sendText(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('x-content-type-options', 'nosniff').type('text/plain; charset=utf-8').send(body);
}
