import type { ServerResponse } from 'node:http';
import { frameChunk } from '../../registry/chunk-framing.js';
import type { WatchEventType } from '../../registry/object-codec.js';
import type { ClientWatch, KubeWatchEvent, KubeWatchSink } from '../../registry/open-watch.js';
import type { WatchEvent } from '../../store/types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ResourceType } from '../../apimachinery/resource-type.js';
import { ChunkWriter, DEFAULT_MAX_BUFFERED_BYTES } from './chunk-writer.js';
import type { TableFormat, TableRequest } from './response-format.js';

export interface WatchStreamOptions {
  readonly resource: ResourceType;
  readonly timeoutSeconds?: number;
  readonly table?: { readonly format: TableFormat; readonly request: TableRequest; readonly now: () => Date };
  /**
   * The line of an event with a stored object framed as an HTTP/1.1 chunk, when no Table is
   * asked: the watch cache's shared objects are encoded once for all their watches
   * (ObjectCodec.eventChunk). Default: each watch encodes its own.
   */
  readonly eventChunk?: (type: WatchEventType, object: KubeObject, cause?: WatchEvent) => Buffer;
  /**
   * Joins the chunks of a group of events into the one buffer written, ideally once for all
   * the watches that get the same group (ObjectCodec.joinChunks). Default: Buffer.concat.
   */
  readonly joinChunks?: (chunks: readonly Buffer[]) => Buffer;
  /** Bytes the connection may hold unread before the watch is closed (default {@link DEFAULT_MAX_BUFFERED_BYTES}). */
  readonly maxBufferedBytes?: number;
  /** Told when a watch is closed because its client stopped reading. */
  readonly onSlowClient?: (bufferedBytes: number) => void;
  /** Ends the stream cleanly when aborted (the server stops), as a timeout does. */
  readonly signal?: AbortSignal;
}

/**
 * Streams a watch the way kube-apiserver does: 200 with headers flushed at once, then one
 * `{"type","object"}` JSON per line (Table objects with one row when asked, column
 * definitions only in the first), until `timeoutSeconds`, the client going away, or the
 * watch ending (or `signal`: the server stopping). `open` starts the watch with a sink this stream provides: events are
 * written as the watch cache fans them out, synchronously, each as one chunk, and each group
 * of them (a store commit's) in one write; a client that stops reading is closed, by the
 * watch cache when 1,000 events wait for it (the sink's backlog) or here when more than
 * `maxBufferedBytes` do: the connection is destroyed, which frees them. Resolves when the
 * stream has ended.
 */
export function streamWatch(response: ServerResponse, open: (sink: KubeWatchSink) => ClientWatch, options: WatchStreamOptions): Promise<void> {
  return new Promise((resolve) => {
    let watch: ClientWatch | undefined;
    let finished = false;
    let dropped = false;
    const writer = new ChunkWriter(response, {
      maxBufferedBytes: options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES,
      onOverflow: (bufferedBytes) => {
        options.onSlowClient?.(bufferedBytes);
        dropped = true; // nothing more is written; the 'close' that follows ends the watch
        response.destroy();
      },
    });
    const encode = new EventEncoder(options);
    const held: Buffer[] = [];
    const flush = (): void => {
      if (held.length === 0) return;
      if (!finished && !dropped) writer.write(held, options.joinChunks);
      held.length = 0;
    };
    const finish = (): void => {
      if (finished) return;
      flush(); // events given before the end are still sent
      finished = true;
      if (timer !== undefined) clearTimeout(timer);
      response.off('close', finish);
      options.signal?.removeEventListener('abort', finish);
      watch?.close();
      writer.close();
      if (!response.writableEnded) response.end();
      resolve();
    };
    response.on('close', finish);
    options.signal?.addEventListener('abort', finish, { once: true });
    const timer = options.timeoutSeconds === undefined ? undefined : setTimeout(finish, options.timeoutSeconds * 1000);
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache, private', 'transfer-encoding': 'chunked' });
    response.flushHeaders();
    try {
      watch = open({
        get backlog() {
          return writer.backlog;
        },
        event: (event) => {
          if (!finished) held.push(encode.chunk(event));
        },
        flush,
        drained: () => writer.drained(),
        end: finish,
      });
    } catch (error) {
      finish();
      throw error;
    }
    flush(); // what the watch gave while opening, should it not have flushed
    if (options.signal?.aborted === true) finish();
    if (finished) watch.close();
  });
}

/** A watch stream's encoding of events: the shared chunks of stored objects, or its own. */
class EventEncoder {
  private first = true;

  constructor(private readonly options: WatchStreamOptions) {}

  chunk(event: KubeWatchEvent): Buffer {
    switch (event.type) {
      case 'ERROR':
      case 'BOOKMARK':
        return line(event);
      default: {
        if (this.options.table === undefined) return this.options.eventChunk?.(event.type, event.object, event.cause) ?? line({ type: event.type, object: event.object });
        const object = tableOf(event.object, this.options, this.first);
        this.first = false;
        return line({ type: event.type, object });
      }
    }
  }
}

const line = (event: { type: string; object: unknown }): Buffer => frameChunk(Buffer.from(`${JSON.stringify(event)}\n`));

function tableOf(object: KubeObject, options: WatchStreamOptions, first: boolean): Record<string, unknown> {
  const table = options.table;
  if (table === undefined) return object;
  return table.format.render(options.resource, [object], { ...table.request, now: table.now(), noHeaders: !first, listMeta: { resourceVersion: object.metadata.resourceVersion } });
}
