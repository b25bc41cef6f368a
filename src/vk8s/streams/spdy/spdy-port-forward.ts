import type { Duplex } from 'node:stream';
import { forwardConnection } from '../port-forward-connection.js';
import { delay, type SessionTiming } from '../session-timing.js';
import type { PodStreamBackend, PodTarget } from '../types.js';
import { serveSpdy, type SpdyStream } from './spdy-connection.js';

interface StreamPair {
  data?: SpdyStream;
  error?: SpdyStream;
  readonly timer: { cancel(): void };
}

/**
 * port-forward over SPDY (`portforward.k8s.io`, kubelet's `httpStreamHandler`). For every
 * local connection the client opens an `error` and a `data` stream carrying `port` and
 * `requestid`; a complete pair is connected to the pod. Streams from clients that send no
 * request id are paired by stream id (error = id, data = id + 2), as kubelet does. A pair
 * left incomplete past the stream-creation timeout is dropped. The session lasts until the
 * client closes it.
 */
export async function serveSpdyPortForward(
  socket: Duplex,
  head: Buffer,
  target: PodTarget,
  backend: PodStreamBackend,
  setup: { readonly timing: SessionTiming; readonly onError: (error: Error) => void },
): Promise<void> {
  const pairs = new Map<string, StreamPair>();
  const failPair = (requestId: string, pair: StreamPair, message: string): void => {
    setup.onError(new Error(message));
    pair.timer.cancel();
    pair.error?.end(message);
    for (const s of [pair.data, pair.error]) s?.resume();
    pair.data?.end();
    pairs.delete(requestId);
  };

  const session = serveSpdy(socket, head, {
    onError: setup.onError,
    onStream(stream) {
      const type = stream.headers['streamtype'] ?? '';
      const requestId = stream.headers['requestid'] ?? pseudoRequestId(stream, type);
      let pair = pairs.get(requestId);
      if (pair === undefined) {
        const timer = delay(setup.timing.streamCreationTimeoutMs);
        const created: StreamPair = { timer };
        pair = created;
        pairs.set(requestId, created);
        void timer.done.then(() => {
          if (pairs.get(requestId) === created && (created.data === undefined || created.error === undefined)) {
            failPair(requestId, created, `timed out waiting for streams for request ${requestId}`);
          }
        });
      }
      const problem = addStream(pair, type, stream);
      if (problem !== undefined) {
        stream.resume();
        stream.end();
        failPair(requestId, pair, `error processing stream for request ${requestId}: ${problem}`);
        return;
      }
      const { data, error } = pair;
      if (data === undefined || error === undefined) return;
      pair.timer.cancel();
      pairs.delete(requestId);
      error.resume();
      const port = Number.parseInt(data.headers['port'] ?? '', 10);
      void forwardConnection(backend, target, Number.isNaN(port) ? 0 : port, { data, error });
    },
  });
  await session.closed;
  for (const pair of pairs.values()) pair.timer.cancel();
}

function addStream(pair: StreamPair, type: string, stream: SpdyStream): string | undefined {
  if (type === 'data') {
    if (pair.data !== undefined) return 'data stream already assigned';
    pair.data = stream;
  } else if (type === 'error') {
    if (pair.error !== undefined) return 'error stream already assigned';
    pair.error = stream;
  } else {
    return `invalid stream type ${JSON.stringify(type)}`;
  }
  return undefined;
}

/** kubelet's best effort for clients without request ids: consecutive stream ids per pair. */
function pseudoRequestId(stream: SpdyStream, type: string): string {
  return String(type === 'data' ? stream.id - 2 : stream.id);
}
