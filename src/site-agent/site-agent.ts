import { join } from 'node:path';
import { makeTreePrivate } from '../common/private-tree.js';
import type { Logger } from '../observability/logger.js';
import { ensureAgentCredential } from './ensure-agent-credential.js';
import { startHeartbeats } from './heartbeat-loop.js';
import { nodeDirectoryFor } from './node-directory.js';
import type { PodRuntime } from './pod-runtime.js';
import { runPodWatch } from './pod-watch-loop.js';
import type { SimOptions } from './runtimes/simulated/sim-options.js';
import { SimulatedRuntime } from './runtimes/simulated/simulated-runtime.js';
import { SiteApiClient } from './site-api-client.js';
import type { PodEventReport, PodRef, PodStatusItem, RegisterSite } from '../site-api/site-api-types.js';
import { EventSender } from './event-sender.js';
import { findRuntimePrograms, type RuncAgentOptions, type RuntimePrograms, startRuncRuntime } from './runtimes/runc/index.js';
import { sitesWithRuntime, type RegisteredRuntime } from './site-specs.js';
import { type Timers, systemTimers } from '../common/timers.js';
import { StatusBatcher } from './status-batcher.js';
import { startSiteTunnel, type SiteTunnel } from './tunnel/site-tunnel.js';
import { dialPodRelay } from './tunnel/dial-pod-relay.js';
import type { ListenAddress } from '../common/listen-address.js';
import { serveAgentMetrics } from './agent-metrics.js';
import { OfflineSiteApi } from './offline/offline-site-api.js';

/** The runc runtime's folders in the agent's home: pods and images, with their own modes (the runtime keeps their top private). */
const RUNTIME_TREES = ['runc', 'images'];
/** Where the agent keeps what the control plane last sent (offline/). */
const OFFLINE_DIR = 'offline';

export interface SiteAgentOptions {
  /** Where the agent keeps its key, certificate and CA. */
  readonly home: string;
  /** The agent's name (its certificate's CN is `site-agent:<agent>`). */
  readonly agent: string;
  readonly sites: readonly RegisterSite[];
  /** The registration token; needed unless `home` holds a credential for these same sites. */
  readonly token?: string;
  /** Overrides the server named by the token. */
  readonly server?: string;
  readonly heartbeatSeconds: number;
  readonly runtime?: 'simulated' | 'runc';
  /**
   * Internal (tests): the runtime the sites are registered with, instead of the one the agent
   * runs (`runtime`). A site registered as runc whose pods the simulated runtime runs gets
   * what the platform does for runc sites (the sidecar's injection) without root or runc.
   */
  readonly registerRuntime?: RegisteredRuntime;
  readonly sim?: Partial<SimOptions>;
  /** Closing stops and removes the runtime's pods and networks (the embedded default's local sites), instead of leaving them for the next agent. */
  readonly removePodsOnClose?: boolean;
  /** The runc runtime's options. */
  readonly runc?: RuncAgentOptions;
  /**
   * Keeps what the control plane sent (pods, placed objects) sealed in `<home>/offline` and
   * starts from it when the control plane does not answer (default: with the runc runtime).
   */
  readonly offlineState?: boolean;
  /** Where to serve the agent's Prometheus metrics (`GET /metrics`, plain HTTP); none when absent. */
  readonly metricsAddress?: ListenAddress;
  readonly logger: Logger;
  readonly timers?: Timers;
  readonly random?: () => number;
  /** Registration progress (sites registered so far). */
  readonly onProgress?: (done: number, total: number) => void;
  readonly registerChunkSize?: number;
  /** Status batching (default 100 ms, 500 items). */
  readonly statusFlushMs?: number;
  readonly statusMaxBatch?: number;
}

export interface SiteAgent {
  /** The site names the server confirmed. */
  readonly sites: readonly string[];
  readonly runtime: PodRuntime;
  /** Settles after the first heartbeat. */
  readonly firstHeartbeat: Promise<void>;
  /** The tunnel the control plane reaches the sites' pod streams through. */
  readonly tunnel: SiteTunnel;
  /** Stops watching and heartbeating, sends waiting reports (for at most `flushTimeoutMs`, default 5 s), closes connections. */
  close(flushTimeoutMs?: number): Promise<void>;
}

/**
 * Starts a site agent: its credential (stored, or registration with the token), then over
 * mTLS one heartbeat for all its sites every `heartbeatSeconds`, the pod watch feeding the
 * runtime, and the runtime's statuses and terminations batched back to the control plane.
 */
export async function startSiteAgent(options: SiteAgentOptions): Promise<SiteAgent> {
  const { logger } = options;
  const timers = options.timers ?? systemTimers();
  // The agent's key and credential live here: the user's alone, fixed and said so at every start.
  // A runc runtime's user-namespaced pods reach their roots through it as their own root (a host id without rights): the home lets others pass (0711).
  for (const path of makeTreePrivate(options.home, RUNTIME_TREES, options.runtime === 'runc')) logger.warn({ path }, 'made private: group and others had access');
  // Each site says how it runs pods (nothing for simulated, the default); a change re-registers.
  // The runc runtime's programs first: without root or runc the agent stops here, before registering; runc's version goes on the site's nodes.
  const programs = options.runtime === 'runc' ? findRuntimePrograms(options.runc?.programs ?? {}) : undefined;
  const registered: RegisteredRuntime =
    programs === undefined ? { runtime: 'simulated' } : { runtime: 'runc', ...(programs.runc.version === '' ? {} : { version: programs.runc.version }) };
  const sites = sitesWithRuntime(options.sites, options.registerRuntime ?? registered);
  const credential = await ensureAgentCredential({
    home: options.home,
    agent: options.agent,
    sites,
    logger,
    ...(options.token === undefined ? {} : { token: options.token }),
    ...(options.server === undefined ? {} : { server: options.server }),
    ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    ...(options.registerChunkSize === undefined ? {} : { chunkSize: options.registerChunkSize }),
    now: () => new Date(timers.now()),
  });
  const client = new SiteApiClient(credential);
  const runtimeRef: { current?: PodRuntime } = {};
  const replayed = { onReplayed: () => runtimeRef.current?.replayed?.() };
  const offline = (options.offlineState ?? options.runtime === 'runc') ? new OfflineSiteApi(client, join(options.home, OFFLINE_DIR), timers, logger, replayed) : undefined;
  if (offline !== undefined) logger.info(offline.restored(), 'persisted site state');
  const reads = offline ?? client;
  /** What the runtime and its Service data plane ask of the control plane: reads through the offline state. */
  const runtimeApi = {
    podIdentityToken: reads.podIdentityToken.bind(reads),
    postServiceEvents: (items: readonly PodEventReport[]) => client.postServiceEvents(items),
    placedObjects: reads.placedObjects.bind(reads),
  };
  const batcher = new StatusBatcher({
    transport: client,
    timers,
    logger,
    onGone: (key, uid) => runtimeRef.current?.remove(key, uid),
    ...(options.statusFlushMs === undefined ? {} : { flushMs: options.statusFlushMs }),
    ...(options.statusMaxBatch === undefined ? {} : { maxBatch: options.statusMaxBatch }),
  });
  const events = new EventSender((items) => client.postEvents(items), timers, logger);
  const sink = {
    status: (key: string, item: PodStatusItem) => batcher.status(key, item),
    terminated: (key: string, ref: PodRef) => batcher.terminated(key, ref),
    event: (report: PodEventReport) => events.add(report),
  };
  const nodes = nodeDirectoryFor(options.agent, sites);
  const metrics = options.metricsAddress === undefined ? undefined : await serveAgentMetrics(options.metricsAddress, logger);
  const podRelay = (): ReturnType<typeof dialPodRelay> => dialPodRelay(credential);
  const runcContext = { options, programs: programs as RuntimePrograms, client: runtimeApi, server: credential.server, podRelay, sink, nodes, timers };
  const runtime: PodRuntime =
    options.runtime === 'runc'
      ? await startRuncRuntime({ ...runcContext, ...(metrics === undefined ? {} : { metrics: metrics.registry }) }).catch(async (error: unknown) => {
          await metrics?.close();
          throw error;
        })
      : new SimulatedRuntime({
          sink,
          timers,
          nodes,
          logger,
          ...(options.sim === undefined ? {} : { sim: options.sim }),
          ...(options.random === undefined ? {} : { random: options.random }),
        });
  runtimeRef.current = runtime;
  // Heartbeats that succeed again mean the link is back: a pod watch open across the cut may hang on a dead connection.
  let restartWatch = (): void => undefined;
  const onRecovered = (): void => {
    restartWatch();
    batcher.retryNow();
  };
  const heartbeats = startHeartbeats({ client, sites: credential.sites, intervalMs: options.heartbeatSeconds * 1000, timers, logger, onRecovered });
  const tunnel = startSiteTunnel({ credential, streams: runtime.streams, timers, logger, ...(options.random === undefined ? {} : { random: options.random }) });
  const abort = new AbortController();
  const watching = runPodWatch({
    client: reads,
    runtime,
    forget: (key) => batcher.forget(key),
    onOpen: () => batcher.retryNow(),
    restartOn: (restart) => (restartWatch = restart),
    timers,
    logger,
    signal: abort.signal,
    ...(options.random === undefined ? {} : { random: options.random }),
  });
  logger.info({ agent: options.agent, sites: credential.sites.length, server: credential.server }, 'site agent running');

  return {
    sites: credential.sites,
    runtime,
    firstHeartbeat: heartbeats.first,
    tunnel,
    async close(flushTimeoutMs = 5000) {
      heartbeats.stop();
      await tunnel.close();
      abort.abort();
      await watching;
      if (options.removePodsOnClose === true && runtime.destroy !== undefined) await runtime.destroy();
      else await runtime.close();
      let cancel: (() => void) | undefined;
      const timeout = new Promise<void>((resolve) => (cancel = timers.schedule(resolve, flushTimeoutMs)));
      await Promise.race([Promise.all([batcher.close(), events.flush()]), timeout]);
      cancel?.();
      client.close();
      await offline?.close();
      await metrics?.close();
      logger.info({ agent: options.agent }, 'site agent stopped');
    },
  };
}
