import type { FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { authorize } from '../../auth/authorize.js';
import { watchObjects } from '../../registry/watch.js';
import { strategyFor } from '../kinds/index.js';
import { findResource, type ResourceType, type Verb } from '../resources.js';
import { handleNamespaceGet, handleNamespaceList, handleNamespaceWatch } from './namespace-handlers.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handleList, handlePatch, handleUpdate } from './object-handlers.js';
import { parseListQuery, parseWatchParameters, single, type RawQuery } from './query.js';
import type { RequestInfo } from './request-info.js';
import { storeOf, type ClusterRequestContext, type ResourceHandlerDependencies, type ResourceRequest } from './resource-request.js';
import { handleGetScale, handleWriteScale } from './scale-handlers.js';
import { streamWatch } from './watch-stream.js';

/** Subresources served by the stream layer (exec, attach, portforward, log): handled elsewhere. */
export type StreamSubresourceHandler = (r: ResourceRequest) => Promise<void>;

const READ_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

/**
 * Routes one resource request of a cluster after kube-apiserver's handler chain: resolve the
 * resource, check the verb against what the seed lists for it (405 otherwise), the namespace
 * (a cluster has exactly one: 403 for any other), the caller's role, then the operation.
 */
export async function dispatchResourceRequest(
  deps: ResourceHandlerDependencies & { readonly streams?: StreamSubresourceHandler },
  context: ClusterRequestContext,
  info: RequestInfo,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const resource = findResource(info.group, info.version, info.resource);
  if (resource === undefined) throw StatusError.noSuchPath();
  const ref = { resource: resource.resource, group: resource.group };
  checkScope(resource, info, context);
  const verb = allowedVerb(resource, info);
  if (verb === undefined) throw StatusError.methodNotAllowed(info.verb, ref);
  const namespace = context.cluster.namespace;
  const decision = authorize(context.principal, READ_VERBS.has(verb) ? 'read' : 'write', namespace);
  if (!decision.allowed) {
    throw StatusError.forbidden(ref, info.name ?? '', `User "${context.principal.user}" cannot ${info.verb} resource "${resource.resource}" in API group "${resource.group}" in the namespace "${namespace}": ${decision.reason}`);
  }
  const r: ResourceRequest = { info, resource, strategy: strategyFor(resource), context, request, reply, query: request.query as RawQuery, deps };
  if (resource.resource === 'namespaces' && resource.group === '') return namespaceRequest(r);
  switch (info.subresource) {
    case undefined:
      return mainRequest(r);
    case 'status':
      return info.verb === 'get' ? handleGet(r) : info.verb === 'update' ? handleUpdate(r, 'status') : handlePatch(r, 'status');
    case 'scale':
      return info.verb === 'get' ? handleGetScale(r) : handleWriteScale(r, info.verb === 'update' ? 'update' : 'patch');
    default:
      if (deps.streams === undefined) throw StatusError.noSuchPath();
      return deps.streams(r);
  }
}

/** The namespace in the path must be the cluster's; cluster-scoped resources take none. */
function checkScope(resource: ResourceType, info: RequestInfo, context: ClusterRequestContext): void {
  const ns = info.namespace;
  const isNamespaceObject = resource.resource === 'namespaces' && resource.group === '';
  if (!resource.namespaced && !isNamespaceObject && ns !== undefined) throw StatusError.noSuchPath();
  if (ns !== undefined && ns !== context.cluster.namespace) {
    const what = { resource: isNamespaceObject ? 'namespaces' : resource.resource, group: resource.group };
    throw StatusError.forbidden(
      what,
      isNamespaceObject ? ns : '',
      `User "${context.principal.user}" cannot ${info.verb} resource "${what.resource}" in API group "${resource.group}" in the namespace "${ns}": this virtual cluster has only the namespace "${context.cluster.namespace}"`,
    );
  }
}

/** The discovery verb a request needs, if the seed lists it for this resource (or subresource). */
function allowedVerb(resource: ResourceType, info: RequestInfo): Verb | undefined {
  if (info.subresource !== undefined) {
    if (info.name === undefined) return undefined;
    const sub = resource.subresources.find((s) => s.name === info.subresource);
    if (sub === undefined) return undefined;
    return sub.verbs.includes(info.verb) ? (info.verb) : undefined;
  }
  const verb = info.verb;
  if (!resource.verbs.includes(verb)) return undefined;
  // Listing or watching across namespaces only where the seed lists it.
  const acrossNamespaces = resource.namespaced && info.namespace === undefined;
  if (acrossNamespaces && !((verb === 'list' || verb === 'watch') && resource.allNamespaces)) return undefined;
  if (info.watchPath && verb !== 'watch') return undefined;
  return verb;
}

async function mainRequest(r: ResourceRequest): Promise<void> {
  switch (r.info.verb) {
    case 'get':
      return handleGet(r);
    case 'list':
      return handleList(r);
    case 'watch':
      return handleWatch(r);
    case 'create':
      return handleCreate(r);
    case 'update':
      return handleUpdate(r);
    case 'patch':
      return handlePatch(r);
    case 'delete':
      return handleDelete(r);
    case 'deletecollection':
      return handleDeleteCollection(r);
  }
}

function namespaceRequest(r: ResourceRequest): Promise<void> | void {
  switch (r.info.verb) {
    case 'get':
      return handleNamespaceGet(r);
    case 'list':
      return handleNamespaceList(r);
    case 'watch':
      return handleNamespaceWatch(r);
    default:
      throw StatusError.methodNotAllowed(r.info.verb, { resource: 'namespaces', group: '' });
  }
}

async function handleWatch(r: ResourceRequest): Promise<void> {
  const store = storeOf(r);
  const query = parseListQuery(r.query, r.strategy);
  // `/watch/.../{name}` watches one object: a field selector on its name.
  const named = r.info.name === undefined ? query : { ...query, fieldSelector: [...(query.fieldSelector ?? []), { field: 'metadata.name', operator: 'Equals' as const, value: r.info.name }] };
  const params = parseWatchParameters(r.query);
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  r.reply.hijack();
  await streamWatch(
    r.reply.raw,
    (signal) =>
      watchObjects(
        { cache: store.cache, codec: store.codec, strategy: r.strategy, prefix: store.prefix(r.context.cluster) },
        { ...named, signal, bookmarkIntervalMs: params.allowWatchBookmarks ? (r.deps.bookmarkIntervalMs ?? 60_000) : undefined },
      ),
    {
      resource: r.resource,
      timeoutSeconds: params.timeoutSeconds ?? 1800 + Math.floor(Math.random() * 1800),
      table: table === undefined || r.deps.tables === undefined ? undefined : { format: r.deps.tables, request: table, now: () => r.deps.clock.now() },
      eventLine: (type, object) => store.codec.eventLine(type, object),
    },
  );
}
