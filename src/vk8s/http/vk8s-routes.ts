import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { CredentialService } from '../../auth/credentials.js';
import type { Logger } from '../../observability/logger.js';
import { apiGroupList, apiResourceList, apiVersions } from '../discovery.js';
import type { VirtualClusterStorage } from '../cluster-storage.js';
import { servedGroupVersions } from '../resources.js';
import { InflightLimiter, isLongRunning } from './inflight-limiter.js';
import type { PodStreamBackend } from '../streams/index.js';
import { resolveCluster, type VirtualK8sLookup } from './cluster-access.js';
import { parseRequestInfo } from './request-info.js';
import { dispatchResourceRequest } from './resource-dispatch.js';
import { podStreamSubresources, type PodStreamDependencies } from './pod-stream-requests.js';
import { podUpgradeListener, type UpgradeListener } from './pod-stream-upgrades.js';
import { routeUpgradeRequest } from './route-upgrade.js';
import type { AdmissionHook } from './admission-hook.js';
import type { ApplyFunction, ClusterRequestContext, ResourceHandlerDependencies } from './resource-request.js';
import { sendStatus, type TableFormat } from './response-format.js';
import type { Clock } from '../../common/clock.js';
import { registerOpenApiRoute } from './openapi-route.js';
import type { ClusterNodeSource } from './cluster-node-source.js';
import type { SessionAudit } from '../audit/session-audit.js';

export interface VirtualClusterApiDependencies {
  readonly credentials: CredentialService;
  /** The virtual_k8s objects, read per request (a watch-fed mirror of the config keys). */
  readonly virtualK8sObjects: VirtualK8sLookup;
  readonly logger: Logger;
  /** The version document of the virtual clusters (Kubernetes 1.17). */
  readonly version: Readonly<Record<string, string>>;
  readonly storage: VirtualClusterStorage;
  readonly clock: Clock;
  readonly tables?: TableFormat;
  readonly apply?: ApplyFunction;
  /** What runs the pods: serves `exec`, `attach`, `portforward` (upgrades) and `log`. Without it, these answer 404. */
  readonly podStreams?: PodStreamBackend;
  /** Other upgrade requests' listeners in front of the routes (the site tunnels): given where the rest goes, it returns the listener. */
  readonly upgrades?: (next: UpgradeListener) => UpgradeListener;
  /** Where `exec`, `attach` and `portforward` requests are recorded (audit.k8s.io/v1 Events), refused ones included. */
  readonly sessionAudit?: SessionAudit;
  readonly bookmarkIntervalMs?: number;
  /** The sites' Nodes as every cluster's read-only `nodes` (default: the clusters' own stored Nodes). */
  readonly nodes?: ClusterNodeSource;
  /** kube's --max-requests-inflight / --max-mutating-requests-inflight (default 400 / 200). */
  readonly maxInflight?: { readonly readOnly: number; readonly mutating: number };
  /** Validating admission of creates, updates and patches (e.g. workload flavors); none when unset. */
  readonly admission?: AdmissionHook;
  /** The namespace's labels and annotations, and each cluster's Pod Security floor: makes namespaces writable (their metadata). */
  readonly namespaces?: ResourceHandlerDependencies['namespaces'];
}

type Params = { namespace: string; vk8s: string; group?: string; version?: string };

/** The request decoration holding the request's {@link ClusterRequestContext}. */
const CONTEXT = 'vk8sClusterContext';

function sendJson(reply: FastifyReply, body: unknown): FastifyReply {
  return reply.code(200).header('content-type', 'application/json').send(JSON.stringify(body));
}

/**
 * The virtual clusters' Kubernetes API: `/api/vk8s/namespaces/{namespace}/{vk8s}` is a
 * cluster's base URL (what kubeconfigs point at). Every request is authenticated with the
 * platform's credentials; the caller's tenant must own the virtual_k8s object (404 when not,
 * so other tenants' clusters do not exist for it), and a kubeconfig credential works only for
 * its own cluster. Failures are `metav1.Status`. With `podStreams`, the server's HTTP upgrades
 * are taken too: pod sessions (exec, attach, port-forward) are served, any other upgrade
 * request is routed as an ordinary request.
 */
export function registerVirtualClusterApi(app: FastifyInstance, deps: VirtualClusterApiDependencies): void {
  const clusterOf = (request: FastifyRequest): Promise<ClusterRequestContext> => resolveCluster(deps, request.params as Params, request.headers, request.raw.socket);
  const streams: PodStreamDependencies | undefined = deps.podStreams === undefined ? undefined : { storage: deps.storage, backend: deps.podStreams, logger: deps.logger };
  // kube-apiserver's shutdown: watches end cleanly before the server waits for requests, so clients watch again elsewhere.
  const watchesEnd = new AbortController();
  app.addHook('preClose', (done) => {
    watchesEnd.abort();
    done();
  });
  const handlers = { ...deps, watchesEnd: watchesEnd.signal, ...(streams === undefined ? {} : { streams: podStreamSubresources(streams) }) };
  if (streams !== undefined) {
    // Sessions in pods are HTTP upgrades, which the routes never see.
    const routes = routeUpgradeRequest(app);
    const upgrades = podUpgradeListener({ ...deps, ...streams, ...(deps.sessionAudit === undefined ? {} : { audit: deps.sessionAudit }), fallback: deps.upgrades === undefined ? routes : deps.upgrades(routes) });
    app.server.on('upgrade', upgrades.listener);
    app.addHook('preClose', (done) => {
      upgrades.closeAll();
      done();
    });
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
      // The cluster of the request, as the preHandler found it: a request decoration (fastify
      // gives every request the property from the start, so requests keep one shape).
      scope.decorateRequest(CONTEXT, null);
      scope.addHook('preHandler', async (request) => {
        // The not-found handler has no path parameters: there is no cluster to look for.
        if ((request.params as Partial<Params>).vk8s === undefined) return;
        request.setDecorator<ClusterRequestContext>(CONTEXT, await clusterOf(request));
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
        const context = request.getDecorator<ClusterRequestContext | null>(CONTEXT);
        if (context === null) throw StatusError.internal('the request was not authenticated');
        const mark = request.url.indexOf('?');
        const path = (mark < 0 ? request.url : request.url.slice(0, mark)).slice(`/api/vk8s/namespaces/${namespace}/${vk8s}`.length);
        const info = parseRequestInfo(request.method, path, request.query as { watch?: string });
        if (info === undefined) throw StatusError.noSuchPath();
        await dispatchResourceRequest(handlers, context, info, request, reply);
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
