import type { FastifyReply, FastifyRequest } from 'fastify';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { parseResourceVersion } from '../../registry/list.js';
import { openWatch } from '../../registry/open-watch.js';
import { strategyFor } from '../kinds/index.js';
import { handleNamespaceGet, handleNamespaceList, handleNamespaceWatch } from './namespace-handlers.js';
import { handleNamespaceWrite } from './namespace-write-handlers.js';
import { nodeViewRequest } from './node-view-handlers.js';
import { handleCreate, handleDelete, handleDeleteCollection, handleGet, handleList, handlePatch, handleUpdate } from './object-handlers.js';
import { parseListQuery, parseWatchParameters, single, type RawQuery } from './query.js';
import type { RequestInfo } from './request-info.js';
import { admitResourceRequest } from './resource-admission.js';
import { storeOf, type ClusterRequestContext, type ResourceHandlerDependencies, type ResourceRequest } from './resource-request.js';
import { handleGetScale, handleWriteScale } from './scale-handlers.js';
import { streamWatch } from './watch-stream.js';

/** Subresources served by the stream layer (exec, attach, portforward, log): handled elsewhere. */
export type StreamSubresourceHandler = (r: ResourceRequest) => Promise<void>;

/**
 * Routes one resource request of a cluster after kube-apiserver's handler chain: the checks of
 * `admitResourceRequest` (resource, namespace, verb, role), then the operation.
 */
export async function dispatchResourceRequest(
  deps: ResourceHandlerDependencies & { readonly streams?: StreamSubresourceHandler },
  context: ClusterRequestContext,
  info: RequestInfo,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const resource = admitResourceRequest(context, info);
  const r: ResourceRequest = { info, resource, strategy: strategyFor(resource), context, request, reply, query: request.query as RawQuery, deps };
  if (resource.resource === 'namespaces' && resource.group === '') return namespaceRequest(r);
  if (resource.resource === 'nodes' && resource.group === '' && deps.nodes !== undefined) return nodeViewRequest(r, deps.nodes);
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
    case 'update':
    case 'patch':
      return handleNamespaceWrite(r);
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
  // A malformed resourceVersion is a 400 Status, as kube-apiserver answers before it streams.
  if (named.resourceVersion !== undefined && named.resourceVersion !== '') parseResourceVersion(named.resourceVersion);
  r.reply.hijack();
  await streamWatch(
    r.reply.raw,
    (sink) =>
      openWatch(
        { cache: store.cache, codec: store.codec, strategy: r.strategy, prefix: store.prefix(r.context.cluster) },
        { ...named, bookmarkIntervalMs: params.allowWatchBookmarks ? (r.deps.bookmarkIntervalMs ?? 60_000) : undefined },
        sink,
      ),
    {
      resource: r.resource,
      timeoutSeconds: params.timeoutSeconds ?? 1800 + Math.floor(Math.random() * 1800),
      table: table === undefined || r.deps.tables === undefined ? undefined : { format: r.deps.tables, request: table, now: () => r.deps.clock.now() },
      eventChunk: (type, object, cause) => store.codec.eventChunk(type, object, cause),
      joinChunks: (chunks) => store.codec.joinChunks(chunks),
      signal: r.deps.watchesEnd,
      onSlowClient: (bufferedBytes) => r.deps.logger?.info({ resource: r.resource.resource, cluster: `${r.context.cluster.namespace}/${r.context.cluster.name}`, bufferedBytes }, 'watch closed: its client stopped reading'),
    },
  );
}
