import { PassThrough, type Duplex } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ChannelProtocol } from '../protocols.js';
import { runRemoteCommand, endAndFlush, type RemoteCommand } from '../remote-command.js';
import { encodeStatus } from '../remote-status.js';
import { expectedStreamCount } from '../remote-command-options.js';
import { ResizeDecoder } from '../resize-decoder.js';
import { within, type SessionTiming } from '../session-timing.js';
import type { PodStreamBackend, StreamIo } from '../types.js';
import { serveSpdy, type SpdyStream } from './spdy-connection.js';

type StreamType = 'error' | 'stdin' | 'stdout' | 'stderr' | 'resize';
const STREAM_TYPES: readonly string[] = ['error', 'stdin', 'stdout', 'stderr', 'resize'];

/**
 * exec/attach over SPDY (kubelet's `remotecommand` server side). The client opens one stream
 * per requested standard stream, named by the `streamtype` header, plus `error` (and `resize`
 * for terminals from v3 on). Once all have arrived the backend runs; stdout and stderr are
 * FINed, then the status goes on `error`, and the client closes the connection.
 */
export async function serveSpdyRemoteCommand(
  socket: Duplex,
  head: Buffer,
  command: RemoteCommand,
  backend: PodStreamBackend,
  setup: { readonly protocol: ChannelProtocol; readonly timing: SessionTiming; readonly onError: (error: Error) => void },
): Promise<void> {
  const expected = expectedStreamCount(command.options, setup.protocol.version >= 3);
  const streams = new Map<StreamType, SpdyStream>();
  let allArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (allArrived = resolve));
  const session = serveSpdy(socket, head, {
    onError: setup.onError,
    onStream(stream) {
      const type = stream.headers['streamtype'] ?? '';
      if (!STREAM_TYPES.includes(type) || streams.has(type as StreamType)) {
        stream.resume();
        return;
      }
      streams.set(type as StreamType, stream);
      if (streams.size === expected) allArrived();
    },
  });

  const complete = await within(Promise.race([arrived, session.closed]), setup.timing.streamCreationTimeoutMs);
  const errorStream = streams.get('error');
  if (!complete || streams.size < expected || errorStream === undefined) {
    if (!complete) setup.onError(new Error('timed out waiting for client to create streams'));
    session.close(true);
    return;
  }

  const abort = new AbortController();
  const io = sessionIo(streams, abort.signal);
  void session.closed.then(() => abort.abort());
  errorStream.resume();
  const status = await runRemoteCommand(command, backend, io);
  // The outputs are piped into their SPDY streams: the status must not overtake them.
  const outputs = [streams.get('stdout'), streams.get('stderr')].filter((s) => s !== undefined);
  await Promise.all(outputs.map((s) => finished(s, { readable: false }).catch(() => undefined)));
  const bytes = encodeStatus(status, setup.protocol);
  if (bytes !== null && !abort.signal.aborted) errorStream.write(bytes);
  await endAndFlush(errorStream);
  streams.get('stdin')?.end();
  streams.get('resize')?.end();
  // The client closes the connection once it has the status; GOAWAY if it does not.
  if (!(await within(session.closed, setup.timing.closeGraceMs))) {
    session.close();
    if (!(await within(session.closed, 1000))) session.close(true);
  }
}

/** Node streams for the backend, piped to and from the SPDY streams. */
function sessionIo(streams: ReadonlyMap<StreamType, SpdyStream>, signal: AbortSignal): StreamIo {
  const output = (stream: SpdyStream | undefined): PassThrough | undefined => {
    if (stream === undefined) return undefined;
    stream.resume();
    const pass = new PassThrough();
    pass.on('error', () => undefined);
    pass.pipe(stream);
    signal.addEventListener('abort', () => pass.destroy());
    return pass;
  };
  const stdinStream = streams.get('stdin');
  let stdin: PassThrough | undefined;
  if (stdinStream !== undefined) {
    const input = new PassThrough();
    stdin = input;
    input.on('error', () => undefined);
    stdinStream.pipe(input);
    // The client went away: the command sees the end of its input.
    signal.addEventListener('abort', () => {
      stdinStream.unpipe(input);
      input.end();
    });
  }
  const resizeStream = streams.get('resize');
  const resize = resizeStream === undefined ? undefined : resizeStream.pipe(new ResizeDecoder());
  const stdout = output(streams.get('stdout'));
  const stderr = output(streams.get('stderr'));
  return {
    signal,
    ...(stdin === undefined ? {} : { stdin }),
    ...(stdout === undefined ? {} : { stdout }),
    ...(stderr === undefined ? {} : { stderr }),
    ...(resize === undefined ? {} : { resize }),
  };
}
