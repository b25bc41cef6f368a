import type { Duplex, Writable } from 'node:stream';
import { portForwardRefusal } from './port-forward-refusal.js';
import type { PodStreamBackend, PodTarget } from './types.js';

/** One forwarded connection's two client streams, whatever carries them. */
export interface ForwardedStreams {
  /** Bytes both ways; its readable side ends when the client stops sending. */
  readonly data: Duplex;
  /** Failure text for the client; ended when the connection is over. */
  readonly error: Writable;
}

/** kubelet's failure text for a forwarded port (the pod as kubelet names it: `<name>_<namespace>`). */
function forwardingError(target: PodTarget, port: number, message: string): string {
  return `error forwarding port ${port} to pod ${target.pod}_${target.namespace}, uid ${target.uid ?? ''}: ${message}`;
}

/**
 * Connects one forwarded connection to `port` in the pod and copies both ways until the pod
 * side closes: the client's end of input half-closes the pod side, the pod side's end ends
 * `data`, and `error` ends last (clients wait for it). A failure is written on `error`; so is
 * the API's refusal of a port the pod must keep to itself ({@link portForwardRefusal}: the
 * sidecar's), which never reaches the backend (kubectl prints `an error occurred forwarding
 * <local> -> <port>: pods "p" is forbidden: …`).
 * Resolves when the connection is over; the client resetting `data` destroys the pod side.
 */
export async function forwardConnection(backend: PodStreamBackend, target: PodTarget, port: number, streams: ForwardedStreams): Promise<void> {
  const { data, error } = streams;
  const refusal = portForwardRefusal(target, port);
  if (refusal !== undefined) return failBeforeStart(streams, refusal.message);
  let upstream: Duplex;
  try {
    upstream = await backend.portForward(target, port);
  } catch (failure) {
    return failBeforeStart(streams, forwardingError(target, port, failure instanceof Error ? failure.message : String(failure)));
  }
  await new Promise<void>((resolve) => {
    let done = false;
    const finish = (failure?: Error): void => {
      if (done) return;
      done = true;
      if (failure !== undefined && !error.writableEnded) error.write(forwardingError(target, port, failure.message));
      if (!data.writableEnded) data.end();
      if (!error.writableEnded) error.end();
      resolve();
    };
    upstream.on('error', (failure: Error) => finish(failure));
    upstream.on('close', () => finish());
    upstream.on('end', () => finish());
    data.on('close', () => {
      if (!done) upstream.destroy();
    });
    data.pipe(upstream);
    upstream.pipe(data, { end: false });
  });
}

/** Ends a forwarded connection that never reached the pod, with `text` on its error stream. */
function failBeforeStart(streams: ForwardedStreams, text: string): void {
  streams.error.end(text);
  streams.data.end();
  streams.data.resume();
}
