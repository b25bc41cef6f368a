import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { StatusError } from '../apimachinery/errors/status-error.js';
import { authenticateRequest } from '../auth/authenticate.js';
import { CredentialError } from '../auth/credential-error.js';
import { jsonDepthExceeds } from '../common/json-depth.js';
import { AuthenticationError, type CredentialService } from '../auth/credentials.js';
import type { Logger } from '../observability/logger.js';
import { sendJson, sendStatus } from '../vk8s/http/response-format.js';
import type { AgentDirectory } from './agent-directory.js';
import { authenticateAgent } from './agent-authentication.js';
import type { AgentLeases } from './agent-leases.js';
import type { BoundPodSource } from './bound-pod-watch.js';
import { streamBoundPods } from './bound-pod-stream.js';
import { parsePlacedObjectKind, parsePlacedObjectWait, type PlacedObjectKind, type PlacedObjectList, type PlacedObjectWait } from './placed-objects.js';
import { parsePodBatch, parsePodEventBatch, type PodEventItem, type PodWriteResult, type SitePodWrites } from './site-pod-writes.js';
import type { EventRecorder } from '../controllers/events/event-recorder.js';
import type { SiteRegistrar } from './site-registrar.js';
import { parseTokenRequest, type TokenService } from './token-service.js';

export interface SiteApiDependencies {
  readonly credentials: CredentialService;
  readonly tokens: TokenService;
  readonly registrar: SiteRegistrar;
  readonly leases: AgentLeases;
  readonly agents: AgentDirectory;
  readonly podWrites: SitePodWrites;
  readonly pods: BoundPodSource;
  /**
   * The objects placed on an agent's sites (`GET /objects`; with `after`, a long poll that
   * answers once they may have changed); without it the path is not served.
   */
  readonly placedObjects?: (kind: PlacedObjectKind, sites: ReadonlySet<string>, wait?: PlacedObjectWait) => Promise<PlacedObjectList>;
  /**
   * Bootstrap tokens of the identity service for pods bound to the agent's sites
   * (`POST /pods/identity-token`); without it the path is not served. Failures are StatusErrors.
   */
  readonly podIdentityTokens?: (agentSites: ReadonlySet<string>, body: unknown) => Promise<unknown>;
  /** Records a site proxy's Events on Services placed on the agent's sites (`POST /services/events`); without it the path is not served. */
  readonly serviceEvents?: (sites: ReadonlySet<string>, items: readonly PodEventItem[]) => Promise<PodWriteResult[]>;
  /** Where the sites' pod Events go (`POST /pods/events`); without it the path is not served. */
  readonly events?: EventRecorder;
  /** The platform CA PEM. */
  readonly caPem: string;
  readonly logger: Logger;
  /** BOOKMARK after this long without an event on a pod watch (default 30 s). */
  readonly bookmarkIntervalMs?: number;
  /** Largest request body (registrations of thousands of sites, status batches). Default 64 MiB. */
  readonly bodyLimit?: number;
}

const SITE_API_PREFIX = '/api/sites/v1';

/** Site API bodies (registrations, status batches) nest about ten levels; deeper ones are refused before anything walks them recursively. */
const MAX_BODY_DEPTH = 64;

function jsonBody(request: FastifyRequest): unknown {
  const text = typeof request.body === 'string' ? request.body : '';
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw StatusError.badRequest(`the request body is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (jsonDepthExceeds(value, MAX_BODY_DEPTH)) throw StatusError.badRequest(`the request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`);
  return value;
}

function bearerToken(request: FastifyRequest): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (match === null) throw StatusError.unauthorized('registration needs "Authorization: Bearer <registration token>"');
  return match[1] ?? '';
}

/**
 * The site API (contract (6) of issue 5), on the control plane's HTTPS server: the CA
 * (no authentication), registration tokens (config API credentials), registration (Bearer
 * registration token), and, with an agent's client certificate, heartbeats, the watch of the
 * pods bound to its sites, batched pod status and termination reports, the ConfigMaps,
 * Secrets, ServiceAccounts, Services and claims placed on its sites, and bootstrap tokens of
 * the identity service for its pods. Failures are
 * Kubernetes Status JSON. `docs/SITE-API.md` describes the protocol.
 */
export function registerSiteApi(app: FastifyInstance, deps: SiteApiDependencies): void {
  const streams = new Set<AbortController>();
  // Long-running pod watches must not hold the server's graceful stop.
  app.addHook('preClose', (done) => {
    for (const stream of streams) stream.abort();
    done();
  });
  void app.register(
    (scope, _options, done) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', { parseAs: 'string', bodyLimit: deps.bodyLimit ?? 64 * 1024 * 1024 }, (_request, body, next) => next(null, body));
      scope.setNotFoundHandler((_request, reply) => void sendStatus(reply, StatusError.noSuchPath()));
      scope.setErrorHandler((error: FastifyError | Error, request, reply) => {
        if (error instanceof StatusError) return sendStatus(reply, error);
        if (error instanceof AuthenticationError) return sendStatus(reply, StatusError.unauthorized(error.message));
        if (error instanceof CredentialError && error.code === 'PermissionDenied') return sendStatus(reply, StatusError.forbidden({ resource: 'sites', group: '' }, '', error.message));
        const fastifyError = error as FastifyError;
        if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendStatus(reply, StatusError.requestEntityTooLarge(deps.bodyLimit ?? 64 * 1024 * 1024));
        if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode < 500) return sendStatus(reply, StatusError.badRequest(error.message));
        deps.logger.error({ err: error, url: request.url }, 'site API request failed');
        return sendStatus(reply, StatusError.internal('an unexpected error; it has been logged'));
      });

      scope.get('/ca', (_request, reply) => reply.code(200).type('text/plain; charset=utf-8').send(deps.caPem));

      scope.post('/tokens', async (request, reply) => {
        const principal = await authenticateRequest(deps.credentials, request.headers, request.raw.socket);
        return sendJson(reply, 200, await deps.tokens.issue(principal, parseTokenRequest(jsonBody(request)), (site) => deps.registrar.claimOf(site)));
      });

      scope.post('/register', async (request, reply) => sendJson(reply, 200, await deps.registrar.register(bearerToken(request), jsonBody(request))));

      // Every agent every few seconds: logged at debug (site state changes have their own line).
      scope.post('/heartbeat', { config: { requestLogLevel: 'debug' } }, async (request, reply) => {
        const agent = await authenticateAgent(deps.agents, request.raw.socket);
        const body = jsonBody(request);
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw StatusError.badRequest('the body must be a JSON object: {"sites": [...]}');
        const sites = (body as { sites?: unknown }).sites;
        if (sites !== undefined && !(Array.isArray(sites) && sites.every((s) => typeof s === 'string'))) throw StatusError.badRequest('sites: must be a list of site names');
        await deps.leases.heartbeat(agent.name, sites);
        return sendJson(reply, 200, { leaseSeconds: deps.leases.graceSeconds });
      });

      scope.get('/pods', async (request, reply) => {
        const agent = await authenticateAgent(deps.agents, request.raw.socket);
        const stream = new AbortController();
        streams.add(stream);
        try {
          await streamBoundPods(request, reply, { agent, agents: deps.agents, source: deps.pods, bookmarkIntervalMs: deps.bookmarkIntervalMs ?? 30_000, signal: stream.signal });
        } finally {
          streams.delete(stream);
        }
      });

      const placedObjects = deps.placedObjects;
      if (placedObjects !== undefined) {
        scope.get('/objects', async (request, reply) => {
          const agent = await authenticateAgent(deps.agents, request.raw.socket);
          const query = request.query as Record<string, unknown>;
          const kind = parsePlacedObjectKind(query['kind']);
          // A long poll ends early when the agent goes away or the server closes.
          const gone = new AbortController();
          const onClose = (): void => gone.abort();
          request.raw.socket.once('close', onClose);
          streams.add(gone);
          try {
            const list = await placedObjects(kind, agent.sites, parsePlacedObjectWait(query, gone.signal));
            return request.raw.socket.destroyed ? reply : sendJson(reply, 200, list);
          } finally {
            streams.delete(gone);
            request.raw.socket.off('close', onClose);
          }
        });
      }

      scope.post('/pods/status', async (request, reply) => {
        const agent = await authenticateAgent(deps.agents, request.raw.socket);
        const items = parsePodBatch(jsonBody(request), true);
        return sendJson(reply, 200, { results: await deps.podWrites.writeStatuses(agent.name, agent.sites, items) });
      });

      const podIdentityTokens = deps.podIdentityTokens;
      if (podIdentityTokens !== undefined) {
        scope.post('/pods/identity-token', async (request, reply) => {
          const agent = await authenticateAgent(deps.agents, request.raw.socket);
          return sendJson(reply, 200, await podIdentityTokens(agent.sites, jsonBody(request)));
        });
      }

      const events = deps.events;
      if (events !== undefined) {
        scope.post('/pods/events', { config: { requestLogLevel: 'debug' } }, async (request, reply) => {
          const agent = await authenticateAgent(deps.agents, request.raw.socket);
          const items = parsePodEventBatch(jsonBody(request));
          return sendJson(reply, 200, { results: await deps.podWrites.events(agent.sites, items, events) });
        });
      }

      const serviceEvents = deps.serviceEvents;
      if (serviceEvents !== undefined) {
        scope.post('/services/events', { config: { requestLogLevel: 'debug' } }, async (request, reply) => {
          const agent = await authenticateAgent(deps.agents, request.raw.socket);
          return sendJson(reply, 200, { results: await serviceEvents(agent.sites, parsePodEventBatch(jsonBody(request))) });
        });
      }

      scope.post('/pods/terminated', async (request, reply) => {
        const agent = await authenticateAgent(deps.agents, request.raw.socket);
        const items = parsePodBatch(jsonBody(request), false);
        return sendJson(reply, 200, { results: await deps.podWrites.terminated(agent.name, agent.sites, items) });
      });
      done();
    },
    { prefix: SITE_API_PREFIX },
  );
}
