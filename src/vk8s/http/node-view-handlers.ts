import { StatusError } from '../../apimachinery/errors/status-error.js';
import { parseResourceVersion } from '../../registry/list.js';
import { sendObject } from './object-handlers.js';
import { parseListQuery, parseWatchParameters, single } from './query.js';
import type { ResourceRequest } from './resource-request.js';
import { listBody, sendJson } from './response-format.js';
import { streamWatch } from './watch-stream.js';
import type { ClusterNodeSource } from './cluster-node-source.js';

/** get (and `/status`), list and watch of `nodes` from a {@link ClusterNodeSource}; other verbs 405. */
export async function nodeViewRequest(r: ResourceRequest, nodes: ClusterNodeSource): Promise<void> {
  const ref = { resource: 'nodes', group: '' };
  if (r.info.subresource !== undefined && r.info.subresource !== 'status') throw StatusError.noSuchPath();
  switch (r.info.verb) {
    case 'get':
      return sendObject(r, 200, await nodes.get(r.context.cluster, r.info.name ?? ''));
    case 'list':
      return nodeList(r, nodes);
    case 'watch':
      return nodeWatch(r, nodes);
    default:
      throw StatusError.methodNotAllowed(r.info.verb, ref);
  }
}

async function nodeList(r: ResourceRequest, nodes: ClusterNodeSource): Promise<void> {
  const result = await nodes.list(r.context.cluster, parseListQuery(r.query, r.strategy));
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  if (table !== undefined && r.deps.tables !== undefined) {
    void sendJson(r.reply, 200, r.deps.tables.render(r.resource, result.items, { now: r.deps.clock.now(), ...table, listMeta: { resourceVersion: result.resourceVersion, continue: result.continue } }));
    return;
  }
  void sendJson(r.reply, 200, listBody(r.resource, result.items, result));
}

async function nodeWatch(r: ResourceRequest, nodes: ClusterNodeSource): Promise<void> {
  const query = parseListQuery(r.query, r.strategy);
  const named = r.info.name === undefined ? query : { ...query, fieldSelector: [...(query.fieldSelector ?? []), { field: 'metadata.name', operator: 'Equals' as const, value: r.info.name }] };
  const params = parseWatchParameters(r.query);
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  if (named.resourceVersion !== undefined && named.resourceVersion !== '') parseResourceVersion(named.resourceVersion);
  r.reply.hijack();
  await streamWatch(r.reply.raw, (sink) => nodes.watch(r.context.cluster, { ...named, bookmarkIntervalMs: params.allowWatchBookmarks ? (r.deps.bookmarkIntervalMs ?? 60_000) : undefined }, sink), {
    resource: r.resource,
    timeoutSeconds: params.timeoutSeconds ?? 1800 + Math.floor(Math.random() * 1800),
    table: table === undefined || r.deps.tables === undefined ? undefined : { format: r.deps.tables, request: table, now: () => r.deps.clock.now() },
    signal: r.deps.watchesEnd,
  });
}
