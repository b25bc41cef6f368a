import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { SecretError } from '../secret-error.js';
import { podHandlers } from './pod-handlers.js';
import { tenantHandlers } from './tenant-handlers.js';
import { toSecretError } from './to-secret-error.js';
import { type Method, METHODS, type SecretApiDependencies, type SecretRoute } from './secret-api-types.js';


function send(reply: FastifyReply, error: SecretError): FastifyReply {
  return reply.code(error.httpStatus).type('application/json').send(JSON.stringify(error.toBody()));
}

/**
 * The secret management API under `/api/secret_management` (next to the configuration API's
 * secret_policy routes there): public keys, policy documents and key rotation for tenant
 * credentials; unseal and provider resolution for pods (mutual TLS with the pod's client
 * certificate; with `podsOnly` these alone, for the pod-facing API). Errors are SecretErrors;
 * request bodies and answers are never logged.
 */
export function registerSecretApi(app: FastifyInstance, deps: SecretApiDependencies): void {
  void app.register(
    (scope, _options, done) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.bodyLimit }, (_request, body, next) => next(null, body));
      scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
        if ((error as FastifyError).code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
          return send(reply, new SecretError('InvalidArgument', `request body is larger than the limit of ${deps.bodyLimit} bytes`));
        }
        const mapped = toSecretError(error);
        if (mapped.code === 'Internal' && !(error instanceof SecretError)) {
          deps.logger.error({ err: { type: error.name, message: error.message }, url: request.url.split('?')[0] }, 'secret management request failed');
        }
        return send(reply, mapped);
      });
      const route: SecretRoute = (path, handlers) => {
        scope.route({
          method: [...METHODS],
          url: path,
          handler: async (request, reply) => {
            const handler = handlers[request.method as Method];
            if (handler === undefined) return send(reply, new SecretError('MethodNotAllowed', `Method Not Allowed: ${request.method} is not supported on ${request.url.split('?')[0] ?? ''}`));
            return reply.code(200).type('application/json').send(JSON.stringify(await handler(request)));
          },
        });
      };
      if (deps.podsOnly !== true) tenantHandlers(route, deps);
      podHandlers(route, deps);
      done();
    },
    { prefix: '/api/secret_management' },
  );
}
