import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateRequest } from '../../auth/authenticate.js';
import { CredentialError } from '../../auth/credential-error.js';
import { AuthenticationError } from '../../auth/credentials.js';
import { isStoreError } from '../../store/errors.js';
import { verifyDnsDomain } from '../dns-verification.js';
import { ConfigError, toConfigError } from '../errors.js';
import { kindForPath, NAMESPACED_KINDS, type ConfigKind } from '../kinds/index.js';
import { credentialRoutes } from './credential-routes.js';
import { parseJsonBody } from './json-body.js';
import type { Principal } from '../../auth/principal.js';
import { ALL_METHODS, type ConfigApiDependencies, type ConfigApiRateLimit, type Handler } from './config-api-types.js';

type Params = Record<string, string>;
type Query = Record<string, string | string[] | undefined>;

function single(query: Query, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? value[0] : value;
}

function reportFields(query: Query): boolean {
  return query['report_fields'] !== undefined && single(query, 'report_fields') !== 'false';
}

function sendError(reply: FastifyReply, error: ConfigError): FastifyReply {
  return reply.code(error.httpStatus).type('application/json').send(JSON.stringify(error.toBody()));
}

/** The request decoration holding what authenticating the request found: its principal or the error to answer with. */
const AUTHENTICATION = 'configApiAuthentication';
type Authentication = { readonly principal: Principal } | { readonly error: unknown };

/**
 * The rate limit's verdict on a request: undefined to serve it, else the 429 to answer
 * (`Retry-After` in `retryAfterSeconds`). A request with a valid credential is counted
 * against that credential, any other against its client address.
 */
function rateLimited(limit: ConfigApiRateLimit, authentication: Authentication, address: string): { error: ConfigError; retryAfterSeconds: number } | undefined {
  const principal = 'principal' in authentication ? authentication.principal : undefined;
  const key = principal === undefined ? `address ${address}` : `credential ${principal.tenant}/${principal.credential}`;
  const retryAfterSeconds = limit.buckets.take(key);
  if (retryAfterSeconds === undefined) return undefined;
  limit.refused(principal === undefined ? 'address' : 'credential');
  const { ratePerSecond, burst } = limit.buckets.rule;
  const who = principal === undefined ? `unauthenticated requests from ${address}` : `requests of credential ${principal.credential}`;
  return {
    retryAfterSeconds,
    error: new ConfigError('ResourceExhausted', `too many ${who}: at most ${ratePerSecond} per second (bursts of ${burst}); retry after ${retryAfterSeconds} s`),
  };
}

function methodNotAllowed(method: string, path: string): ConfigError {
  return new ConfigError('Unimplemented', `Method Not Allowed: ${method} is not supported on ${path}`);
}

/**
 * The configuration API (`/api/config`, `/api/secret_management`, `/api/web`), answered in
 * its own error shape. Every request is authenticated; bodies are read as text and parsed
 * here so that malformed JSON and oversize bodies get this API's 400.
 */
export function registerConfigApi(app: FastifyInstance, deps: ConfigApiDependencies): void {
  void app.register(
    (scope, _options, done) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.bodyLimit }, (_request, body, next) => next(null, body));

      // Every request is authenticated first (headers and the TLS session only; the body is
      // not read yet), so that the rate limit knows whose it is; the handlers take the outcome.
      scope.decorateRequest(AUTHENTICATION, null);
      scope.addHook('onRequest', async (request, reply) => {
        const authentication: Authentication = await authenticateRequest(deps.credentials, request.headers, request.raw.socket).then(
          (principal) => ({ principal }),
          (error: unknown) => ({ error }),
        );
        request.setDecorator<Authentication>(AUTHENTICATION, authentication);
        const refusal = deps.rateLimit === undefined ? undefined : rateLimited(deps.rateLimit, authentication, request.ip);
        if (refusal === undefined) return;
        return sendError(reply.header('retry-after', String(refusal.retryAfterSeconds)), refusal.error);
      });

      scope.setNotFoundHandler((request, reply) => {
        void sendError(reply, new ConfigError('NotFound', `no configuration API path ${request.url.split('?')[0] ?? ''}`));
      });

      scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
        if (error instanceof ConfigError || error instanceof CredentialError || isStoreError(error)) return sendError(reply, toConfigError(error));
        if (error instanceof AuthenticationError) return sendError(reply, new ConfigError('Unauthenticated', error.message));
        const fastifyError = error as FastifyError;
        if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
          return sendError(reply, ConfigError.invalid(`request body is larger than the limit of ${deps.bodyLimit} bytes`));
        }
        if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) return sendError(reply, ConfigError.invalid(error.message));
        deps.logger.error({ err: error, url: request.url }, 'configuration API request failed');
        return sendError(reply, new ConfigError('Internal', 'internal error'));
      });

      const route = (path: string, methods: Partial<Record<(typeof ALL_METHODS)[number], Handler>>): void => {
        scope.route({
          method: [...ALL_METHODS],
          url: path,
          handler: async (request, reply) => {
            const handler = methods[request.method as (typeof ALL_METHODS)[number]];
            if (handler === undefined) return sendError(reply, methodNotAllowed(request.method, request.url.split('?')[0] ?? ''));
            const authentication = request.getDecorator<Authentication>(AUTHENTICATION);
            if ('error' in authentication) throw authentication.error;
            const result = await handler(authentication.principal, request);
            return reply.code(200).type('application/json').send(JSON.stringify(result));
          },
        });
      };

      const kindOf = (request: FastifyRequest): ConfigKind => {
        const { slug, plural } = request.params as Params;
        const kind = kindForPath(slug ?? '', plural ?? '');
        if (kind === undefined) throw new ConfigError('NotFound', `no configuration API path ${request.url.split('?')[0] ?? ''}: unknown kind "${plural ?? ''}"`);
        return kind;
      };
      const params = (request: FastifyRequest): Params => request.params as Params;
      const query = (request: FastifyRequest): Query => request.query as Query;
      const body = (request: FastifyRequest): unknown => parseJsonBody(request.body);

      route('/config/openapi.json', { GET: () => Promise.resolve(deps.openapi()) });

      route('/:slug/namespaces/:namespace/:plural', {
        GET: (p, r) => deps.service.list(p, kindOf(r), params(r)['namespace'] ?? '', { reportFields: reportFields(query(r)), ...labelFilter(query(r)) }),
        POST: (p, r) => deps.service.create(p, kindOf(r), params(r)['namespace'] ?? '', body(r)),
      });
      route('/:slug/namespaces/:namespace/:plural/:name', {
        GET: (p, r) => deps.service.get(p, kindOf(r), params(r)['namespace'] ?? '', params(r)['name'] ?? '', single(query(r), 'response_format')),
        PUT: (p, r) => deps.service.replace(p, kindOf(r), params(r)['namespace'] ?? '', params(r)['name'] ?? '', body(r)),
        DELETE: (p, r) => deps.service.delete(p, kindOf(r), params(r)['namespace'] ?? '', params(r)['name'] ?? '', body(r)),
      });
      route('/config/namespaces/:namespace/virtual_sites/:name/selectees', {
        GET: (p, r) => deps.service.selectees(p, params(r)['namespace'] ?? '', params(r)['name'] ?? ''),
      });
      const verify: Handler = async (p, r) => {
        const { namespace = '', name = '' } = params(r);
        const target = await deps.service.authorizedTarget(p, NAMESPACED_KINDS.get('dns_domain') as ConfigKind, namespace, 'write');
        return { status: await verifyDnsDomain(deps.service.registry, deps.resolver, deps.clock, target, name) };
      };
      route('/config/namespaces/:namespace/dns_domain/:name/verify', { POST: verify });
      route('/config/namespaces/:namespace/dns_domains/:name/verify', { POST: verify });

      route('/web/namespaces', {
        GET: (p, r) => deps.service.listNamespaces(p, { reportFields: reportFields(query(r)), ...labelFilter(query(r)) }),
        POST: (p, r) => deps.service.createNamespace(p, body(r)),
      });
      route('/web/namespaces/:name', {
        GET: (p, r) => deps.service.getNamespace(p, params(r)['name'] ?? '', single(query(r), 'response_format')),
        PUT: (p, r) => deps.service.replaceNamespace(p, params(r)['name'] ?? '', body(r)),
      });
      route('/web/namespaces/:name/cascade_delete', { POST: (p, r) => deps.service.cascadeDeleteNamespace(p, params(r)['name'] ?? '') });
      credentialRoutes(route, deps, body);
      done();
    },
    { prefix: '/api' },
  );
}

function labelFilter(query: Query): { labelFilter?: string } {
  const value = single(query, 'label_filter');
  return value === undefined ? {} : { labelFilter: value };
}
