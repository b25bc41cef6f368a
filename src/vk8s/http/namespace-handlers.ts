import { StatusError } from '../../apimachinery/errors/status-error.js';
import { matchesQuery } from '../../registry/list.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { sendObject } from './object-handlers.js';
import { parseListQuery, parseWatchParameters, single } from './query.js';
import type { ClusterRequestContext, ResourceRequest } from './resource-request.js';
import { listBody, sendJson } from './response-format.js';
import { streamWatch } from './watch-stream.js';

/**
 * A virtual cluster has exactly one Kubernetes namespace: the platform namespace its
 * virtual_k8s object lives in, Active for as long as the cluster exists.
 */
function namespaceObject(context: ClusterRequestContext): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: context.cluster.namespace, uid: context.uid, resourceVersion: context.resourceVersion, creationTimestamp: context.createdAt },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  };
}

export function handleNamespaceGet(r: ResourceRequest): void {
  if (r.info.subresource !== undefined && r.info.subresource !== 'status') throw StatusError.noSuchPath();
  sendObject(r, 200, namespaceObject(r.context));
}

export function handleNamespaceList(r: ResourceRequest): void {
  const namespace = namespaceObject(r.context);
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
  const namespace = namespaceObject(r.context);
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
    { resource: r.resource, timeoutSeconds, table: table === undefined || r.deps.tables === undefined ? undefined : { format: r.deps.tables, request: table, now: () => r.deps.clock.now() } },
  );
}
