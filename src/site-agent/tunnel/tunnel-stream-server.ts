import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { PassThrough, type Duplex, type Readable, type Writable } from 'node:stream';
import type { Logger } from '../../observability/logger.js';
import { AsyncQueue } from '../../site-api/async-queue.js';
import { SiteStreamError, type PodStreams, type SiteStreamIo, type SiteTerminalSize } from '../../site-api/pod-streams.js';
import { channelWriter, readFrames, writeWithBackpressure } from '../../site-api/tunnel-channels.js';
import {
  Channel,
  decodeHeaderJson,
  encodeHeaderJson,
  EXIT_CODE_TRAILER,
  FAILURE_TRAILER,
  parseTunnelRequest,
  TUNNEL_REQUEST_HEADER,
  type TunnelFailure,
  type TunnelRequest,
} from '../../site-api/tunnel-protocol.js';

/** A site's refusal as the tunnel carries it; anything but a SiteStreamError is the site's own fault (500). */
function failureOf(error: unknown): TunnelFailure {
  if (error instanceof SiteStreamError) return { code: error.code, message: error.message };
  return { code: 500, message: `the site failed: ${error instanceof Error ? error.message : String(error)}` };
}

function refuse(stream: ServerHttp2Stream, failure: TunnelFailure): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ':status': failure.code, 'content-type': 'text/plain; charset=utf-8' });
  stream.end(failure.message);
}

/**
 * Serves one stream the control plane opened on the agent's tunnel: parses its request and
 * hands it to the runtime's `PodStreams`. Logs and forwarded connections are the stream's
 * body; exec and attach multiplex their channels in frames and end with the exit code (or
 * the failure) in trailers. When the control plane resets the stream — the client left —
 * what the runtime started for it is stopped through the session's abort signal.
 */
export async function serveTunnelStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, streams: PodStreams | undefined, logger: Logger): Promise<void> {
  stream.on('error', (error) => logger.debug({ err: error }, 'tunnel stream error'));
  const request = parseTunnelRequest(decodeHeaderJson(headers[TUNNEL_REQUEST_HEADER]));
  if (request === undefined) return refuse(stream, { code: 400, message: 'the tunnel request is malformed' });
  if (streams === undefined) return refuse(stream, { code: 400, message: `site ${JSON.stringify(request.target.site)} serves no pod streams` });
  try {
    switch (request.kind) {
      case 'logs':
        return await serveBody(stream, await streams.logs(request.target, request.options));
      case 'portforward':
        return await serveBody(stream, await streams.portForward(request.target, request.port));
      default:
        return await serveSession(stream, request, streams);
    }
  } catch (error) {
    if (!(error instanceof SiteStreamError)) logger.warn({ err: error, kind: request.kind, pod: request.target.name }, 'pod stream failed on the site');
    refuse(stream, failureOf(error));
  }
}

/** A log (readable) or a forwarded connection (duplex, half-close both ways) as the stream's body. */
function serveBody(stream: ServerHttp2Stream, body: Readable | Duplex): Promise<void> {
  if (stream.destroyed) {
    body.destroy();
    return Promise.resolve();
  }
  stream.respond({ ':status': 200 });
  return new Promise((resolve) => {
    const done = (): void => {
      body.destroy();
      resolve();
    };
    stream.once('close', done);
    body.once('error', () => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
    body.pipe(stream);
    if (isWritable(body)) stream.pipe(body);
    else stream.resume();
  });
}

function isWritable(body: Readable | Duplex): body is Duplex {
  return typeof (body as Partial<Writable>).write === 'function';
}

type SessionRequest = Extract<TunnelRequest, { kind: 'exec' | 'attach' }>;

/** exec or attach: channels in frames both ways, the outcome in trailers. */
async function serveSession(stream: ServerHttp2Stream, request: SessionRequest, streams: PodStreams): Promise<void> {
  const abort = new AbortController();
  stream.once('close', () => abort.abort());
  const { options } = request;
  const stdin = options.stdin ? new PassThrough() : undefined;
  const resize = options.tty ? new AsyncQueue<SiteTerminalSize>() : undefined;
  const stdout = options.stdout ? channelWriter(stream, Channel.stdout) : undefined;
  const stderr = options.stderr ? channelWriter(stream, Channel.stderr) : undefined;
  const io: SiteStreamIo = { ...(stdin === undefined ? {} : { stdin }), ...(stdout === undefined ? {} : { stdout }), ...(stderr === undefined ? {} : { stderr }), ...(resize === undefined ? {} : { resize }), signal: abort.signal };
  stream.respond({ ':status': 200 }, { waitForTrailers: true });
  const input = readFrames(stream, (channel, payload) => {
    if (channel === Channel.stdin && stdin !== undefined) return writeWithBackpressure(stdin, payload);
    if (channel === Channel.stdinEnd) stdin?.end();
    if (channel === Channel.resize) resize?.push(payload.length === 0 ? { width: 0, height: 0 } : (JSON.parse(payload.toString('utf8')) as SiteTerminalSize));
    return undefined;
  }).then(
    () => stdin?.end(),
    () => abort.abort(),
  );
  let trailers: Record<string, string>;
  try {
    const exitCode = await (request.kind === 'exec' ? streams.exec(request.target, request.options, io) : streams.attach(request.target, request.options, io).then(() => 0));
    trailers = { [EXIT_CODE_TRAILER]: String(exitCode) };
  } catch (error) {
    trailers = { [FAILURE_TRAILER]: encodeHeaderJson(failureOf(error)) };
  }
  resize?.end();
  await Promise.all([finish(stdout), finish(stderr)]);
  if (stream.destroyed) return;
  stream.once('wantTrailers', () => stream.sendTrailers(trailers));
  stream.end();
  await input; // settles when the control plane ends its side or the stream closes
}

/** Ends a channel writer once what it holds reached the stream. */
function finish(writer: Writable | undefined): Promise<void> {
  if (writer === undefined || writer.writableFinished) return Promise.resolve();
  return new Promise((resolve) => {
    writer.once('finish', resolve);
    writer.once('close', resolve);
    writer.end();
  });
}
