import { peerCertificateOf } from './peer-certificate.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../apimachinery/errors/status-error.js';
import { authenticateRequest } from '../auth/authenticate.js';
import { CredentialError } from '../auth/credential-error.js';
import { AuthenticationError, type CertificatePrincipal, type CredentialService } from '../auth/credentials.js';
import type { Logger } from '../observability/logger.js';
import { sendJson } from '../vk8s/http/response-format.js';
import { IdentityError } from './identity-error.js';
import type { IdentityOperations } from './identity-service.js';

const IDENTITY_API_PREFIX = '/api/identity/v1';
/** Two CSRs (RSA-8192 ones included) fit many times over. */
const DEFAULT_IDENTITY_BODY_LIMIT = 64 * 1024;

export interface IdentityApiDependencies {
  readonly service: IdentityOperations;
  /** Config API credentials: who may mint tokens. */
  readonly credentials: CredentialService;
  readonly logger: Logger;
  readonly bodyLimit?: number;
  /** Only the routes a pod's sidecar calls — issuance and renewal, not the admins' `POST /tokens` (the pod-facing API). */
  readonly podsOnly?: boolean;
}

function jsonBody(request: FastifyRequest): unknown {
  const text = typeof request.body === 'string' ? request.body : '';
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new IdentityError('BadRequest', `the request body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The bootstrap token of `Authorization: Bearer <token>`; undefined without one. */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) throw new IdentityError('Unauthenticated', 'the Authorization header must be "Bearer <bootstrap token>"');
  return match[1];
}

const send = (reply: FastifyReply, error: IdentityError): FastifyReply => sendJson(reply, error.status, error.toStatus());

/**
 * The identity API on the control plane's HTTPS server (`/api/identity/v1`): issuance with a
 * bootstrap token, renewal with the pod's client certificate (TLS only requested it; the
 * service verifies it against the tenant CA), and admins' bootstrap tokens (not on the
 * pod-facing API: `podsOnly`). Every failure is a Kubernetes Status from {@link IdentityError}.
 * `docs/IDENTITY.md` describes the API.
 */
export function registerIdentityApi(app: FastifyInstance, deps: IdentityApiDependencies): void {
  const bodyLimit = deps.bodyLimit ?? DEFAULT_IDENTITY_BODY_LIMIT;
  void app.register(
    (scope, _options, done) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, body, next) => next(null, body));
      scope.setNotFoundHandler((_request, reply) => void sendJson(reply, 404, new StatusError('NotFound', 'the server could not find the requested resource').toStatus()));
      scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
        if (error instanceof IdentityError) {
          if (error.code === 'Internal') deps.logger.error({ err: error, url: request.url }, 'identity request failed');
          return send(reply, error);
        }
        if (error instanceof AuthenticationError) return send(reply, new IdentityError('Unauthenticated', error.message));
        if (error instanceof CredentialError && error.code === 'PermissionDenied') return send(reply, new IdentityError('Forbidden', error.message));
        const fastifyError = error as FastifyError;
        if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return send(reply, new IdentityError('TooLarge', `the request body is larger than ${bodyLimit} bytes`));
        if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) return send(reply, new IdentityError('BadRequest', error.message));
        deps.logger.error({ err: error, url: request.url }, 'identity request failed');
        return send(reply, IdentityError.from(error));
      });

      scope.post('/certificates', async (request, reply) => sendJson(reply, 200, await deps.service.issueWithToken(bearerToken(request), jsonBody(request))));

      scope.post('/certificates/renew', async (request, reply) => {
        return sendJson(reply, 200, await deps.service.renew(peerCertificateOf(request.raw.socket), jsonBody(request)));
      });

      if (deps.podsOnly !== true) {
        scope.post('/tokens', async (request, reply) => {
          const principal = (await authenticateRequest(deps.credentials, request.headers, request.raw.socket)) as CertificatePrincipal;
          return sendJson(reply, 200, await deps.service.tokenForAdmin(principal, jsonBody(request)));
        });
      }
      done();
    },
    { prefix: IDENTITY_API_PREFIX },
  );
}
