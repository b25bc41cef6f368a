import type { FastifyInstance } from 'fastify';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { buildVirtualClusterOpenApi } from '../openapi/virtual-cluster-openapi.js';
import type { OpenApiV2Document } from '../openapi/openapi-v2-document.js';

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/**
 * `GET {base}/openapi/v2` in a virtual clusters' route scope (behind its authentication). The
 * document is built on the first request and kept for the life of the scope; `build` is for
 * tests. `{base}/openapi/v3` answers 404 like kube-apiserver 1.17, which newer kubectl takes
 * as "use v2"; it is a route of its own so that the cluster in the path is checked as for
 * any route (the scope's not-found handler has no path parameters).
 */
export function registerOpenApiRoute(scope: FastifyInstance, base: string, build: () => OpenApiV2Document = () => buildVirtualClusterOpenApi({ builtAt: new Date() })): void {
  let document: OpenApiV2Document | undefined;
  scope.get(`${base}/openapi/v2`, (request, reply) => {
    document ??= build();
    const response = document.respond({
      accept: header(request.headers.accept),
      ifNoneMatch: header(request.headers['if-none-match']),
      acceptEncoding: header(request.headers['accept-encoding']),
    });
    return reply.code(response.statusCode).headers(response.headers).send(response.body);
  });
  const absent = (): never => {
    throw StatusError.noSuchPath();
  };
  scope.get(`${base}/openapi/v3`, absent);
  scope.get(`${base}/openapi/v3/*`, absent);
}
