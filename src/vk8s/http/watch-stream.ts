import type { ServerResponse } from 'node:http';
import type { WatchEventType } from '../../registry/object-codec.js';
import type { KubeWatchEvent } from '../../registry/watch.js';
import type { KubeObject } from '../object.js';
import type { ResourceType } from '../resources.js';
import type { TableFormat, TableRequest } from './response-format.js';

export interface WatchStreamOptions {
  readonly resource: ResourceType;
  readonly timeoutSeconds?: number;
  readonly table?: { readonly format: TableFormat; readonly request: TableRequest; readonly now: () => Date };
  /**
   * The line (newline included) of an event with a stored object, when no Table is asked:
   * the watch cache's shared objects are encoded once for all their watches. Default: each
   * watch serializes its own.
   */
  readonly eventLine?: (type: WatchEventType, object: KubeObject) => string | Buffer;
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
  const eventLine = options.eventLine ?? ((type: WatchEventType, object: KubeObject): string => `${JSON.stringify({ type, object })}\n`);
  try {
    for await (const event of events(controller.signal)) {
      if (controller.signal.aborted) break;
      let line: string | Buffer;
      if (event.type === 'ERROR' || event.type === 'BOOKMARK') line = `${JSON.stringify({ type: event.type, object: event.object })}\n`;
      else if (options.table === undefined) line = eventLine(event.type, event.object);
      else {
        line = `${JSON.stringify({ type: event.type, object: tableOf(event.object, options, first) })}\n`;
        first = false;
      }
      if (!response.write(line)) await drained(response, controller.signal);
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
