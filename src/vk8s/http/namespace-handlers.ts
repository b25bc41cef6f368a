import { StatusError } from '../../apimachinery/errors/status-error.js';
import { matchesQuery } from '../../registry/list.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { sendObject } from './object-handlers.js';
import { parseListQuery, parseWatchParameters, single } from './query.js';
import { namespaceObject } from './namespace-object.js';
import type { ResourceRequest } from './resource-request.js';
import { listBody, sendJson } from './response-format.js';
import { streamWatch } from './watch-stream.js';

/** The cluster's namespace now, with the labels and annotations users set on it. */
function currentNamespace(r: ResourceRequest): KubeObject {
  const current = r.deps.namespaces?.metadata.current(r.context.cluster);
  return namespaceObject(r.context, current?.metadata, current?.revision);
}

export function handleNamespaceGet(r: ResourceRequest): void {
  if (r.info.subresource !== undefined && r.info.subresource !== 'status') throw StatusError.noSuchPath();
  sendObject(r, 200, currentNamespace(r));
}

export function handleNamespaceList(r: ResourceRequest): void {
  const namespace = currentNamespace(r);
  const items = matchesQuery(namespace, parseListQuery(r.query, r.strategy), r.strategy) ? [namespace] : [];
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  const meta = { resourceVersion: r.context.resourceVersion };
  if (table !== undefined && r.deps.tables !== undefined) {
    void sendJson(r.reply, 200, r.deps.tables.render(r.resource, items, { now: r.deps.clock.now(), ...table, listMeta: meta }));
    return;
  }
  void sendJson(r.reply, 200, listBody(r.resource, items, meta));
}

/** A watch of the namespaces: the one namespace ADDED (unless resuming), then quiet until the end. */
export async function handleNamespaceWatch(r: ResourceRequest): Promise<void> {
  const namespace = currentNamespace(r);
  const query = parseListQuery(r.query, r.strategy);
  const { timeoutSeconds } = parseWatchParameters(r.query);
  const fresh = query.resourceVersion === undefined || query.resourceVersion === '' || query.resourceVersion === '0';
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  r.reply.hijack();
  await streamWatch(
    r.reply.raw,
    (sink) => {
      if (fresh && matchesQuery(namespace, query, r.strategy)) {
        sink.event({ type: 'ADDED', object: namespace });
        sink.flush();
      }
      return { close: () => undefined };
    },
    {
      resource: r.resource,
      timeoutSeconds,
      table: table === undefined || r.deps.tables === undefined ? undefined : { format: r.deps.tables, request: table, now: () => r.deps.clock.now() },
      signal: r.deps.watchesEnd,
    },
  );
}
