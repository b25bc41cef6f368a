import { constants, type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';
import type { Duplex, Readable } from 'node:stream';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodStreamTarget } from '../../site-api/pod-streams.js';
import { SITE_NAME_LABEL } from '../../site-api/site-model.js';
import { readFrames, sendFrame, writeWithBackpressure } from '../../site-api/tunnel-channels.js';
import { Channel, decodeHeaderJson, EXIT_CODE_TRAILER, FAILURE_TRAILER, type TunnelFailure, type TunnelRequest } from '../../site-api/tunnel-protocol.js';
import { StreamError, type PodStreamBackend, type PodTarget, type StreamKind } from '../../vk8s/streams/index.js';
import type { AttachOptions, ExecOptions, ExitResult, LogOptions, StreamIo } from '../../vk8s/streams/types.js';
import type { SiteTunnels } from './site-tunnels.js';
import type { TunnelMetrics } from './tunnel-metrics.js';
import { idleTimeoutOf, lostSite, openTunnelStream } from './tunnel-stream-client.js';

/** kubelet's `--streaming-connection-idle-timeout` default. */
const DEFAULT_STREAM_IDLE_TIMEOUT_MS = 4 * 60 * 60 * 1000;

export interface TunnelPodBackendOptions {
  readonly tunnels: SiteTunnels;
  /** The pod a stream is for, as stored (undefined when it is gone). */
  readonly podOf: (target: PodTarget) => Promise<KubeObject | undefined>;
  /** exec, attach and forwarded connections with no traffic this long are closed (default 4 h). */
  readonly idleTimeoutMs?: number;
  readonly metrics?: TunnelMetrics;
}

/**
 * The vK8s pod streams served by the sites that run the pods: each `kubectl logs`, `exec`,
 * `attach` and forwarded connection becomes one stream on the tunnel of the agent serving the
 * pod's site (`svc.io/siteName`). A site whose agent has no tunnel is refused before the
 * upgrade; a tunnel lost mid-stream ends the stream with an error saying so.
 */
export class TunnelPodBackend implements PodStreamBackend {
  private readonly idleTimeoutMs: number;

  constructor(private readonly options: TunnelPodBackendOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
  }

  async admit(target: PodTarget, _kind: StreamKind): Promise<void> {
    await this.route(target);
  }

  async logs(target: PodTarget, options: LogOptions): Promise<Readable> {
    const { container: _container, ...rest } = options;
    return (await this.open(target, 'logs', (t) => ({ kind: 'logs', target: t, options: rest }), { endStream: true })).stream;
  }

  async portForward(target: PodTarget, port: number): Promise<Duplex> {
    return (await this.open(target, 'portforward', (t) => ({ kind: 'portforward', target: t, port }), { endStream: false, idleTimeoutMs: this.idleTimeoutMs })).stream;
  }

  async exec(target: PodTarget, options: ExecOptions, io: StreamIo): Promise<ExitResult> {
    const { container: _container, ...rest } = options;
    const { stream, site } = await this.open(target, 'exec', (t) => ({ kind: 'exec', target: t, options: rest }), { endStream: false, idleTimeoutMs: this.idleTimeoutMs });
    return { exitCode: await runSession(stream, io, site, this.idleTimeoutMs) };
  }

  async attach(target: PodTarget, options: AttachOptions, io: StreamIo): Promise<ExitResult> {
    const { container: _container, ...rest } = options;
    const { stream, site } = await this.open(target, 'attach', (t) => ({ kind: 'attach', target: t, options: rest }), { endStream: false, idleTimeoutMs: this.idleTimeoutMs });
    return { exitCode: await runSession(stream, io, site, this.idleTimeoutMs) };
  }

  private async open(target: PodTarget, kind: TunnelRequest['kind'], request: (t: PodStreamTarget) => TunnelRequest, options: { endStream: boolean; idleTimeoutMs?: number }): Promise<{ stream: ClientHttp2Stream; site: string }> {
    const metrics = this.options.metrics;
    const routed = await this.route(target).catch((error: unknown) => {
      metrics?.streams.inc({ kind, result: 'no_tunnel' });
      throw error;
    });
    const asked = request(routed.siteTarget);
    const stream = await openTunnelStream(routed.session, asked, options).catch((error: unknown) => {
      metrics?.streams.inc({ kind, result: error instanceof StreamError && /was lost/.test(error.message) ? 'lost' : 'refused' });
      throw error;
    });
    if (metrics !== undefined) {
      metrics.streams.inc({ kind, result: 'established' });
      metrics.open.inc({ kind });
      stream.once('close', () => metrics.open.dec({ kind }));
    }
    return { stream, site: routed.siteTarget.site };
  }

  /** The pod's site and the tunnel to it. */
  private async route(target: PodTarget): Promise<{ session: NonNullable<ReturnType<SiteTunnels['sessionFor']>>; siteTarget: PodStreamTarget }> {
    const pod = await this.options.podOf(target);
    const uid = pod?.metadata.uid;
    if (pod === undefined || uid === undefined || (target.uid !== undefined && target.uid !== uid)) throw StreamError.podNotFound(target.pod, target.namespace);
    const site = pod.metadata.labels?.[SITE_NAME_LABEL];
    if (site === undefined) throw StreamError.podNotFound(target.pod, target.namespace);
    const session = this.options.tunnels.sessionFor(site);
    if (session === undefined) {
      throw StreamError.status(StatusError.serviceUnavailable(`site ${JSON.stringify(site)} is not connected to the control plane: its agent has no tunnel now (it may be restarting or cut off); try again when it is back`));
    }
    const siteTarget: PodStreamTarget = { cluster: { tenant: target.tenant, namespace: target.namespace, name: target.vk8s }, name: target.pod, uid, site, container: target.container };
    return { session, siteTarget };
  }
}

/**
 * An exec or attach session on its tunnel stream: stdin and terminal sizes go up as frames,
 * stdout and stderr come down as frames (each waiting while the client's stream is full), and
 * the trailers carry the exit code or the site's failure. The client leaving cancels the
 * stream, which stops the command on the site.
 */
async function runSession(stream: ClientHttp2Stream, io: StreamIo, site: string, idleTimeoutMs: number): Promise<number> {
  const cancel = (): void => void stream.close(constants.NGHTTP2_CANCEL);
  io.signal.addEventListener('abort', cancel, { once: true });
  const trailers = new Promise<IncomingHttpHeaders | undefined>((resolve) => {
    stream.once('trailers', (headers: IncomingHttpHeaders) => resolve(headers));
    stream.once('close', () => resolve(undefined));
  });
  void pumpInput(stream, io);
  try {
    await readFrames(stream, (channel, payload) => {
      const target = channel === Channel.stdout ? io.stdout : channel === Channel.stderr ? io.stderr : undefined;
      return target === undefined ? undefined : writeWithBackpressure(target, payload);
    });
  } catch {
    // cut: the trailers (none) say how
  }
  const outcome = await trailers;
  io.signal.removeEventListener('abort', cancel);
  if (!stream.destroyed) stream.end();
  if (outcome === undefined) throw idleTimeoutOf(stream, idleTimeoutMs) ?? lostSite(site);
  const failure = decodeHeaderJson(outcome[FAILURE_TRAILER]) as TunnelFailure | undefined;
  if (failure !== undefined) throw StreamError.node(failure.code, failure.message);
  return Number(outcome[EXIT_CODE_TRAILER] ?? 0);
}

/** The client's stdin and terminal sizes, up the stream as frames, until they end or the stream does. */
async function pumpInput(stream: ClientHttp2Stream, io: StreamIo): Promise<void> {
  const open = (): boolean => !stream.destroyed && !stream.writableEnded;
  const stdin = (async () => {
    if (io.stdin === undefined) return;
    for await (const chunk of io.stdin as AsyncIterable<Buffer>) {
      if (!open()) return;
      await sendFrame(stream, Channel.stdin, chunk);
    }
    if (open()) await sendFrame(stream, Channel.stdinEnd, Buffer.alloc(0));
  })();
  const resize = (async () => {
    if (io.resize === undefined) return;
    for await (const size of io.resize) {
      if (!open()) return;
      await sendFrame(stream, Channel.resize, Buffer.from(JSON.stringify(size)));
    }
  })();
  await Promise.all([stdin, resize]).catch(() => undefined);
}
