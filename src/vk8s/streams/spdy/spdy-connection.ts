import type { Duplex } from 'node:stream';
import transport, { type SpdyConnection, type SpdyHeaders, type SpdyStream } from 'spdy-transport';

export type { SpdyStream } from 'spdy-transport';

/** What an SPDY session needs from its host: a place for stream and connection errors. */
export interface SpdySessionHooks {
  /**
   * Called for every incoming stream once its SYN_REPLY has been written. Data must not
   * overtake the replies (kubelet's `replySent`): Go's client reads nothing until every
   * stream it opened has its reply, and stops reading frames when a stream's buffer is full.
   */
  readonly onStream: (stream: SpdyStream) => void;
  readonly onError?: (error: Error) => void;
}

export interface SpdySession {
  /** GOAWAY; the socket closes once the open streams are done (or at once with `force`). */
  close(force?: boolean): void;
  /** Resolves when the socket has closed. */
  readonly closed: Promise<void>;
}

/**
 * Serves SPDY/3 on a socket whose HTTP upgrade was already answered (`101`), the way kubelet
 * does for kubectl: the client opens every stream; each is answered with SYN_REPLY at once.
 *
 * Two fixes make npm `spdy-transport` work with Go's spdystream client, both applied to this
 * connection only:
 * - Go sends SYN_STREAM header blocks without `:method`/`:path` (only `streamtype`, `port`,
 *   `requestid`), which the parser rejects (spdy-transport issue #1): its header-block
 *   decoding is wrapped to add placeholders.
 * - Every stream and the connection get an `error` listener: kubectl ends with GOAWAY and
 *   resets, which otherwise surface as uncaught `error` events.
 * - spdystream has no flow control: it never sends WINDOW_UPDATE (nor SETTINGS), so a sender
 *   that honours SPDY/3 stream windows stalls after 64 KiB. Each stream's send window is made
 *   bottomless; TCP's own flow control still applies.
 * - For the same reason kubectl never waits for this side's windows: spdy-transport would read
 *   the socket on and queue a stream's data without bound while its reader (a pod slower than
 *   kubectl's upload) stops reading. The socket is paused while any stream holds more than
 *   {@link STREAM_BUFFER_LIMIT} unread bytes, so TCP pushes back on kubectl.
 */
export function serveSpdy(socket: Duplex, head: Buffer, hooks: SpdySessionHooks): SpdySession {
  if (head.length > 0) socket.unshift(head);
  const connection = transport.connection.create(socket, { protocol: 'spdy', isServer: true });
  acceptHeaderlessStreams(connection);
  const reportError = (error: Error): void => hooks.onError?.(error);
  connection.on('error', reportError);
  socket.on('error', reportError);
  const limit = bufferLimit(socket, connection._spdyState.parser);
  connection.on('stream', (stream) => {
    stream.on('error', reportError);
    ignoreSendWindow(stream);
    limit(stream);
    stream.respond(200, {}, () => hooks.onStream(stream));
  });
  const closed = new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    socket.once('close', () => resolve());
  });
  return {
    closed,
    close(force = false) {
      if (force) {
        socket.destroy();
        return;
      }
      try {
        connection.end();
      } catch (error) {
        reportError(error as Error);
        socket.destroy();
      }
    },
  };
}

/** Unread bytes a stream may hold before the connection stops reading its socket. */
const STREAM_BUFFER_LIMIT = 1024 * 1024;

/**
 * Stops reading `socket` while a stream's unread data is over the limit; reads on when every
 * stream's reader took it. The socket is unpiped from the frame parser (a plain pause would be
 * undone by the pipe as soon as the parser drains).
 */
function bufferLimit(socket: Duplex, parser: NodeJS.WritableStream): (stream: SpdyStream) => void {
  const full = new Set<SpdyStream>();
  const release = (stream: SpdyStream): void => {
    if (full.delete(stream) && full.size === 0) socket.pipe(parser);
  };
  return (stream) => {
    const push = stream.push.bind(stream);
    stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
      const more = push(chunk, encoding);
      if (stream.readableLength > STREAM_BUFFER_LIMIT && !full.has(stream)) {
        full.add(stream);
        if (full.size === 1) {
          socket.unpipe(parser);
          socket.pause();
        }
      }
      return more;
    };
    const read = stream._read.bind(stream);
    stream._read = (size: number) => {
      release(stream);
      read(size);
    };
    stream.once('close', () => release(stream));
  };
}

function ignoreSendWindow(stream: SpdyStream): void {
  stream._spdyState.window.send.update = (_size, callback) => {
    if (callback !== undefined) process.nextTick(callback);
  };
}

function acceptHeaderlessStreams(connection: SpdyConnection): void {
  const parser = connection._spdyState.parser;
  const parseKVs = parser.parseKVs.bind(parser);
  parser.parseKVs = (buffer, callback) => {
    parseKVs(buffer, (error, headers) => {
      if (error != null || headers === undefined) return callback(error, headers);
      const completed: SpdyHeaders = { ...headers };
      completed[':method'] ??= 'POST';
      completed[':path'] ??= '/';
      callback(null, completed);
    });
  };
}
