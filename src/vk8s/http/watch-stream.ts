import type { ServerResponse } from 'node:http';
import type { KubeWatchEvent } from '../../registry/watch.js';
import type { KubeObject } from '../object.js';
import type { ResourceType } from '../resources.js';
import type { TableFormat, TableRequest } from './response-format.js';

export interface WatchStreamOptions {
  readonly resource: ResourceType;
  readonly timeoutSeconds?: number;
  readonly table?: { readonly format: TableFormat; readonly request: TableRequest; readonly now: () => Date };
  /**
   * Serializes an event's object (not Tables, bookmarks or errors): the watch cache's shared
   * objects are serialized once for all their watches. Default `JSON.stringify`.
   */
  readonly encode?: (object: KubeObject) => string;
}

/**
 * Streams a watch the way kube-apiserver does: 200 with headers flushed at once, then one
 * `{"type","object"}` JSON per line (Table objects with one row when asked, column
 * definitions only in the first), until `timeoutSeconds`, the client going away, or the
 * events ending. Events are written as they come; a client that stops reading is closed
 * by the watch cache, not buffered without bound here.
 */
export async function streamWatch(response: ServerResponse, events: (signal: AbortSignal) => AsyncIterable<KubeWatchEvent>, options: WatchStreamOptions): Promise<void> {
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  response.on('close', stop);
  const timer = options.timeoutSeconds === undefined ? undefined : setTimeout(stop, options.timeoutSeconds * 1000);
  response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
  response.flushHeaders();
  let first = true;
  const encode = options.encode ?? JSON.stringify;
  try {
    for await (const event of events(controller.signal)) {
      if (controller.signal.aborted) break;
      let line: string;
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') line = JSON.stringify({ type: event.type, object: event.object });
      else if (options.table === undefined) line = `{"type":"${event.type}","object":${encode(event.object)}}`;
      else {
        line = JSON.stringify({ type: event.type, object: tableOf(event.object, options, first) });
        first = false;
      }
      if (!response.write(`${line}\n`)) await drained(response, controller.signal);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    response.off('close', stop);
    if (!response.writableEnded) response.end();
  }
}

function tableOf(object: KubeObject, options: WatchStreamOptions, first: boolean): Record<string, unknown> {
  const table = options.table;
  if (table === undefined) return object;
  return table.format.render(options.resource, [object], { ...table.request, now: table.now(), noHeaders: !first, listMeta: { resourceVersion: object.metadata.resourceVersion } });
}

function drained(response: ServerResponse, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      response.off('drain', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    response.on('drain', done);
    signal.addEventListener('abort', done, { once: true });
  });
}
