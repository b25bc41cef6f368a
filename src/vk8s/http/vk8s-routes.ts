import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { authenticateRequest } from '../../auth/authenticate.js';
import { authorize } from '../../auth/authorize.js';
import { AuthenticationError, type CredentialService } from '../../auth/credentials.js';
import type { Principal } from '../../auth/principal.js';
import { ConfigError } from '../../config/errors.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../../config/kinds/index.js';
import type { ObjectRegistry } from '../../config/registry.js';
import type { Logger } from '../../observability/logger.js';
import { apiGroupList, apiResourceList, apiVersions } from '../discovery.js';
import type { VirtualClusterStorage } from '../cluster-storage.js';
import { servedGroupVersions } from '../resources.js';
import { InflightLimiter, isLongRunning } from './inflight-limiter.js';
import { parseRequestInfo } from './request-info.js';
import { dispatchResourceRequest, type StreamSubresourceHandler } from './resource-dispatch.js';
import type { ApplyFunction, ClusterRequestContext } from './resource-request.js';
import { sendStatus, type TableFormat } from './response-format.js';
import type { Clock } from '../../server/clock.js';
import { registerOpenApiRoute } from './openapi-route.js';

export interface VirtualClusterApiDependencies {
  readonly credentials: CredentialService;
  readonly registry: ObjectRegistry;
  readonly logger: Logger;
  /** The version document of the virtual clusters (Kubernetes 1.17). */
  readonly version: Readonly<Record<string, string>>;
  readonly storage: VirtualClusterStorage;
  readonly clock: Clock;
  readonly tables?: TableFormat;
  readonly apply?: ApplyFunction;
  readonly streams?: StreamSubresourceHandler;
  readonly bookmarkIntervalMs?: number;
  /** kube's --max-requests-inflight / --max-mutating-requests-inflight (default 400 / 200). */
  readonly maxInflight?: { readonly readOnly: number; readonly mutating: number };
}

type Params = { namespace: string; vk8s: string; group?: string; version?: string };

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(body));
}

/**
 * The virtual clusters' Kubernetes API: `/api/vk8s/namespaces/{namespace}/{vk8s}` is a
 * cluster's base URL (what kubeconfigs point at). Every request is authenticated with the
 * platform's credentials; the caller's tenant must own the virtual_k8s object (404 when not,
 * so other tenants' clusters do not exist for it), and a kubeconfig credential works only for
 * its own cluster. Failures are `metav1.Status`.
 */
export function registerVirtualClusterApi(app: FastifyInstance, deps: VirtualClusterApiDependencies): void {
  const virtualK8s = NAMESPACED_KINDS.get('virtual_k8s') as ConfigKind;

  const contexts = new WeakMap<FastifyRequest, ClusterRequestContext>();

  async function clusterOf(request: FastifyRequest): Promise<ClusterRequestContext> {
    const { namespace, vk8s } = request.params as Params;
    let principal: Principal & { virtualK8s?: { namespace: string; name: string } };
    try {
      principal = await authenticateRequest(deps.credentials, request.headers, request.raw.socket);
    } catch (error) {
      if (error instanceof AuthenticationError) throw StatusError.unauthorized();
      throw error;
    }
    const bound = principal.virtualK8s;
    if (bound !== undefined && (bound.namespace !== namespace || bound.name !== vk8s)) {
      throw StatusError.forbidden({ resource: 'virtualclusters', group: '' }, vk8s, `this credential is for virtual cluster ${bound.namespace}/${bound.name}`);
    }
    let object;
    try {
      object = await deps.registry.get({ tenant: principal.tenant, kind: virtualK8s, namespace }, vk8s);
    } catch (error) {
      if (error instanceof ConfigError && error.code === 'NotFound') throw StatusError.noSuchPath();
      throw error;
    }
    const decision = authorize(principal, 'read', namespace);
    if (!decision.allowed) throw StatusError.forbidden({ resource: 'namespaces', group: '' }, namespace, decision.reason);
    return {
      principal,
      cluster: { tenant: principal.tenant, namespace, name: vk8s },
      uid: object.system_metadata.uid,
      createdAt: object.system_metadata.creation_timestamp.replace(/\.\d+Z$/, 'Z'),
      resourceVersion: object.resource_version,
    };
  }

  void app.register(
    (scope, _options, done) => {
      scope.setNotFoundHandler((_request, reply) => {
        void sendStatus(reply, StatusError.noSuchPath());
      });
      scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
        if (error instanceof StatusError) return sendStatus(reply, error);
        const fastifyError = error as FastifyError;
        if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendStatus(reply, StatusError.requestEntityTooLarge(app.initialConfig.bodyLimit ?? 0));
        if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) return sendStatus(reply, StatusError.badRequest(error.message));
        deps.logger.error({ err: error, url: request.url }, 'virtual cluster API request failed');
        return sendStatus(reply, StatusError.internal('an unexpected error; it has been logged'));
      });

      // Every route of a cluster: authenticated, and the cluster found for the caller's tenant.
      // kube's max-in-flight filter: too many requests at once → 429 with Retry-After.
      const limiter = new InflightLimiter(deps.maxInflight);
      scope.addHook('onRequest', (request, reply, next) => {
        if (isLongRunning(request.url)) return next();
        const release = limiter.acquire(request.method);
        if (release === undefined) return void sendStatus(reply, StatusError.tooManyRequests(1));
        reply.raw.once('close', release);
        next();
      });
      scope.addHook('preHandler', async (request) => {
        // The not-found handler has no path parameters: there is no cluster to look for.
        if ((request.params as Partial<Params>).vk8s === undefined) return;
        contexts.set(request, await clusterOf(request));
      });
      // Bodies are read raw: each operation decodes its own content types (JSON, YAML, patches).
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

      const base = '/namespaces/:namespace/:vk8s';
      scope.get(`${base}/version`, (_request, reply) => sendJson(reply, deps.version));
      scope.get(`${base}/api`, (request, reply) => sendJson(reply, apiVersions(request.host)));
      scope.get(`${base}/apis`, (_request, reply) => sendJson(reply, apiGroupList()));
      scope.get(`${base}/api/v1`, (_request, reply) => sendJson(reply, apiResourceList('', 'v1')));
      scope.get(`${base}/apis/:group`, (request, reply) => {
        const { group } = request.params as Params;
        const versions = servedGroupVersions().filter((gv) => gv.group === group && group !== '');
        if (versions.length === 0) throw StatusError.noSuchPath();
        const entries = versions.map((v) => ({ groupVersion: `${v.group}/${v.version}`, version: v.version }));
        return sendJson(reply, { kind: 'APIGroup', apiVersion: 'v1', name: group, versions: entries, preferredVersion: entries[0] });
      });
      scope.get(`${base}/apis/:group/:version`, (request, reply) => {
        const { group = '', version = '' } = request.params as Params;
        const list = apiResourceList(group, version);
        if (list === undefined) throw StatusError.noSuchPath();
        return sendJson(reply, list);
      });
      const resources = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
        const { namespace, vk8s } = request.params as Params;
        const context = contexts.get(request);
        if (context === undefined) throw StatusError.internal('the request was not authenticated');
        const path = request.url.split('?')[0]?.slice(`/api/vk8s/namespaces/${namespace}/${vk8s}`.length) ?? '';
        const info = parseRequestInfo(request.method, path, request.query as { watch?: string });
        if (info === undefined) throw StatusError.noSuchPath();
        await dispatchResourceRequest(deps, context, info, request, reply);
      };
      const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
      scope.route({ method: [...methods], url: `${base}/api/*`, handler: resources });
      scope.route({ method: [...methods], url: `${base}/apis/*`, handler: resources });
      registerOpenApiRoute(scope, base);
      done();
    },
    { prefix: '/api/vk8s' },
  );
}

/** The `/version` of every virtual cluster: Kubernetes 1.17, with this build in the git version. */
export function virtualClusterVersion(buildVersion: string, platform: string): Record<string, string> {
  return {
    major: '1',
    minor: '17',
    gitVersion: `v1.17.0+edgeplane.${buildVersion}`,
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '',
    goVersion: '',
    compiler: 'edgeplane',
    platform,
  };
}
