import type { ServerHttp2Session } from 'node:http2';
import type { Logger } from '../../observability/logger.js';
import type { Timers } from '../../common/timers.js';
import type { PodStreams } from '../../site-api/pod-streams.js';
import { keepSessionAlive, TUNNEL_PING_INTERVAL_MS } from '../../site-api/session-keepalive.js';
import type { AgentCredential } from '../agent-credential.js';
import { retryDelayMs, sleep } from '../retry-delay.js';
import { dialTunnel } from './dial-tunnel.js';
import { serveTunnelStream } from './tunnel-stream-server.js';

export interface SiteTunnelOptions {
  readonly credential: Pick<AgentCredential, 'server' | 'ca' | 'certificate' | 'key'>;
  /** The runtime's pod streams (undefined: streams are refused with a clear message). */
  readonly streams: PodStreams | undefined;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly random?: () => number;
  readonly pingIntervalMs?: number;
}

export interface SiteTunnel {
  /** True while a tunnel is up. */
  readonly connected: boolean;
  /** Resolves at the first connection (never rejects; the loop keeps trying). */
  readonly firstConnection: Promise<void>;
  /** Stops reconnecting and closes the tunnel; streams in progress are cut. */
  close(): Promise<void>;
}

/**
 * Keeps one tunnel from the agent to the control plane for all its sites: dials, serves the
 * streams the control plane opens, pings every 15 s (so idle timeouts of load balancers in
 * between never cut it and a dead path is noticed), and after a loss dials again with
 * jittered back-off (500 ms doubling to 30 s, ±20 %). The control plane routes new streams
 * to the newest tunnel of an agent.
 */
export function startSiteTunnel(options: SiteTunnelOptions): SiteTunnel {
  const { logger, timers } = options;
  const random = options.random ?? Math.random;
  const stop = new AbortController();
  let session: ServerHttp2Session | undefined;
  let markConnected: () => void = () => undefined;
  const firstConnection = new Promise<void>((resolve) => (markConnected = resolve));

  const serve = (current: ServerHttp2Session): Promise<void> => {
    keepSessionAlive(current, options.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS);
    current.on('stream', (stream, headers) => void serveTunnelStream(stream, headers, options.streams, logger));
    current.on('error', (error) => logger.debug({ err: error }, 'tunnel session error'));
    return new Promise((resolve) => current.once('close', resolve));
  };

  const loop = async (): Promise<void> => {
    let attempt = 0;
    while (!stop.signal.aborted) {
      try {
        session = await dialTunnel(options.credential, stop.signal);
        if (attempt > 0) logger.info({ server: options.credential.server, after: attempt }, 'tunnel to the control plane open again');
        else logger.info({ server: options.credential.server }, 'tunnel to the control plane open');
        attempt = 0;
        markConnected();
        await serve(session);
        session = undefined;
        if (stop.signal.aborted) break;
        logger.warn({ server: options.credential.server }, 'tunnel to the control plane lost; dialling again');
      } catch (error) {
        if (stop.signal.aborted) break;
        attempt += 1;
        const level = attempt === 1 || attempt % 10 === 0 ? 'warn' : 'debug';
        logger[level]({ err: error, attempt }, 'tunnel to the control plane failed; retrying');
      }
      await sleep(timers.schedule, retryDelayMs(Math.max(1, attempt), random), stop.signal);
    }
  };
  const running = loop();

  return {
    get connected() {
      return session !== undefined && !session.destroyed;
    },
    firstConnection,
    async close() {
      stop.abort();
      session?.destroy();
      await running;
    },
  };
}
