import type { GenericStore } from '../registry/generic-store.js';
import { recordServiceEvents } from './site-service-events.js';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { CredentialService } from '../auth/credentials.js';
import type { ObjectRegistry } from '../config/registry.js';
import { ObjectInformer } from '../controllers/runtime/object-informer.js';
import type { Logger } from '../observability/logger.js';
import type { EventRecorder } from '../controllers/events/event-recorder.js';
import type { PlacementView } from '../controllers/placement/placement-view.js';
import { ObjectCodec } from '../registry/object-codec.js';
import { resourcePrefix } from '../registry/keys.js';
import type { Clock } from '../common/clock.js';
import type { Store } from '../store/types.js';
import { WatchCache } from '../store/watch-cache.js';
import type { VirtualClusterStorage } from '../vk8s/cluster-storage.js';
import type { ClusterNodeSource } from '../vk8s/http/cluster-node-source.js';
import { agentCertificateIssuer } from './agent-certificates.js';
import { AgentDirectory } from './agent-directory.js';
import { AgentLeases } from './agent-leases.js';
import { CachedSiteInventory } from './cached-site-inventory.js';
import { startNodeLifecycleController } from './node-lifecycle-controller.js';
import { listPlacedObjects, waitForPlacedChange, type PlacedObjectKind, type PlacedObjectList, type PlacedObjectWait } from './placed-objects.js';
import { PodsBySite } from './pods-by-site.js';
import { caPin } from '../site-api/registration-token.js';
import { SiteConfigObjects } from './site-config-objects.js';
import type { SiteInventory } from '../controllers/placement/site-inventory.js';
import { NODES_PREFIX } from './site-keys.js';
import { SiteNodeStore } from './site-node-store.js';
import { SiteNodeView } from './site-node-view.js';
import { SitePodWrites } from './site-pod-writes.js';
import { SiteRegistrar } from './site-registrar.js';
import { registerSiteApi, type SiteApiDependencies } from './site-routes.js';
import { TokenService } from './token-service.js';
import { SiteTunnels } from './tunnel/site-tunnels.js';
import { PodRelayUpgrades } from './pod-relay-upgrades.js';
import { TunnelPodBackend } from './tunnel/tunnel-pod-backend.js';
import { tunnelMetrics } from './tunnel/tunnel-metrics.js';
import type { Registry } from 'prom-client';
import type { PodStreamBackend } from '../vk8s/streams/index.js';
import type { UpgradeListener } from '../vk8s/http/pod-stream-upgrades.js';
import type { Duplex } from 'node:stream';

export interface SitePlaneDependencies {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The config objects' registry (site objects are written through it). */
  readonly registry: ObjectRegistry;
  /** Config API credentials: who may issue registration tokens. */
  readonly credentials: CredentialService;
  /** Started: the pods' store and watch cache. */
  readonly storage: VirtualClusterStorage;
  /** The platform CA (PEM certificate and key): signs agent certificates. */
  readonly ca: { readonly certificate: string; readonly key: string };
  /** The URL sites reach the control plane at (put in registration tokens). */
  readonly publicUrl: () => string;
  /** Seconds without a heartbeat before a site is FAILED and its Nodes NotReady (default 40, kube's node grace period). */
  readonly graceSeconds?: number;
  /** Quiet time before a BOOKMARK on agents' pod watches (default 30 s). */
  readonly bookmarkIntervalMs?: number;
  /** Largest site API request body (default 64 MiB). */
  readonly bodyLimit?: number;
  /** A pods informer shared with other controllers (not started yet); default: one of its own. */
  readonly podInformer?: ObjectInformer;
  /** Where the node lifecycle controller's events go (`NodeNotReady` on the pods of a site that stopped reporting). */
  readonly events?: EventRecorder;
  /** Events the Node watch cache keeps for resuming watches (default 1000). */
  readonly watchHistory?: number;
  /** exec, attach and forwarded connections idle this long are closed (default 4 h, kubelet's). */
  readonly streamIdleTimeoutMs?: number;
  /** How often tunnels are pinged (default 15 s). */
  readonly tunnelPingIntervalMs?: number;
  /** Where the tunnels' metrics go (none without). */
  readonly metrics?: Registry;
}

export interface SitePlane {
  /** Contract (4): the sites' Nodes, state and quota, from memory. */
  readonly inventory: SiteInventory;
  /** The vK8s `nodes` view: pass as `nodes` to `registerVirtualClusterApi`. */
  readonly nodeView: ClusterNodeSource;
  /**
   * Adds `/api/sites/v1/…` to the server (before it listens); with `placement`, also
   * `GET /objects` (the ConfigMaps, Secrets, … placed on the agent's sites); with
   * `podIdentityTokens`, also `POST /pods/identity-token` (the identity service's bootstrap tokens).
   */
  registerRoutes(app: FastifyInstance, options?: { readonly placement?: PlacementView; readonly podIdentityTokens?: SiteApiDependencies['podIdentityTokens'] }): void;
  /** The vK8s pod streams (logs, exec, attach, port-forward), served by the pods' sites through their agents' tunnels. */
  readonly podStreams: PodStreamBackend;
  /** Takes the agents' tunnel upgrades (`GET /api/sites/v1/tunnel`); other upgrades go to `next`. */
  tunnelUpgrades(next: UpgradeListener): UpgradeListener;
  /**
   * Takes the agents' pod relay upgrades (`GET /api/sites/v1/pod-relay`), handing each relayed
   * pod connection to `serve` (the pod-facing API); other upgrades go to `next`.
   */
  podRelayUpgrades(serve: (socket: Duplex) => void, next: UpgradeListener): UpgradeListener;
  /**
   * The server is stopping: GOAWAY on every tunnel (agents dial again; streams in progress may
   * finish) and the relayed pod connections closed (their relays dial again).
   */
  drain(): void;
  /** Stops the caches, the controller and the informer it made, and closes the tunnels and relayed pod connections. */
  stop(): Promise<void>;
}

/**
 * The control-plane side of sites: registration tokens, registration (agent certificates,
 * site objects, Nodes), heartbeats through store leases, the node lifecycle controller, the
 * site inventory, the agents' pod API, the tunnels, the pod relay and the vK8s node view.
 * Resolves once its caches have listed and its controller runs.
 */
export async function startSitePlane(deps: SitePlaneDependencies): Promise<SitePlane> {
  const { store, clock, logger } = deps;
  const pods = deps.storage.storeFor({ group: '', resource: 'pods' });
  if (pods === undefined) throw new Error('the virtual clusters have no pods store');
  const codec = new ObjectCodec();
  const nodeCache = new WatchCache(store, NODES_PREFIX, { ...(deps.watchHistory === undefined ? {} : { history: deps.watchHistory }), logger });
  const agents = new AgentDirectory(store, logger);
  const inventory = new CachedSiteInventory(store, nodeCache, codec, logger);
  const informer = deps.podInformer ?? new ObjectInformer(pods, logger);
  const podsBySite = new PodsBySite(informer);
  const stopping = new AbortController();
  const stopCaches = (): void => {
    stopping.abort();
    inventory.stop();
    agents.stop();
    nodeCache.stop();
  };
  try {
    await nodeCache.start();
    await Promise.all([agents.start(), inventory.start()]);
    if (deps.podInformer === undefined) await informer.start(stopping.signal);
  } catch (error) {
    stopCaches();
    throw error;
  }

  const objects = new SiteConfigObjects(deps.registry);
  const nodes = new SiteNodeStore({ store, codec, newUid: randomUUID });
  const graceSeconds = deps.graceSeconds ?? 40;
  const leases = new AgentLeases({ store, agents, inventory, graceSeconds, logger });
  const tokens = new TokenService({ store, clock, caPin: caPin(deps.ca.certificate), publicUrl: deps.publicUrl });
  const registrar = new SiteRegistrar({ store, clock, logger, tokens, certificates: agentCertificateIssuer(deps.ca), objects, nodes, agents, inventory, leases, caPem: deps.ca.certificate });
  const controller = startNodeLifecycleController({ store, agents, inventory, objects, nodes, pods, podsBySite, clock, graceSeconds, logger, ...(deps.events === undefined ? {} : { events: deps.events }) });

  const metrics = deps.metrics === undefined ? undefined : tunnelMetrics(deps.metrics);
  const tunnels = new SiteTunnels({
    agents,
    ...(metrics === undefined ? {} : { metrics }),
    agentOf: (site) => inventory.claimOf(site)?.agent,
    logger,
    ...(deps.tunnelPingIntervalMs === undefined ? {} : { pingIntervalMs: deps.tunnelPingIntervalMs }),
  });
  const podRelay = new PodRelayUpgrades({ agents, logger, ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }) });
  const podStreams = new TunnelPodBackend({
    tunnels,
    ...(metrics === undefined ? {} : { metrics }),
    podOf: (target) => pods.get({ tenant: target.tenant, namespace: target.namespace, name: target.vk8s }, target.pod).catch(() => undefined),
    ...(deps.streamIdleTimeoutMs === undefined ? {} : { idleTimeoutMs: deps.streamIdleTimeoutMs }),
  });

  return {
    inventory,
    podStreams,
    tunnelUpgrades: (next) => tunnels.upgradeListener(next),
    podRelayUpgrades: (serve, next) => podRelay.upgradeListener(serve, next),
    nodeView: new SiteNodeView({ store, cache: nodeCache, codec, ownerOf: (site) => inventory.claimOf(site)?.tenant }),
    registerRoutes: (app, options) =>
      registerSiteApi(app, {
        ...placedObjectsOption(deps.storage, options?.placement),
        ...serviceEventsOption(deps.storage, options?.placement, deps.events),
        ...(options?.podIdentityTokens === undefined ? {} : { podIdentityTokens: options.podIdentityTokens }),
        credentials: deps.credentials,
        tokens,
        registrar,
        leases,
        agents,
        podWrites: new SitePodWrites(pods),
        ...(deps.events === undefined ? {} : { events: deps.events }),
        pods: { cache: pods.cache, codec: pods.codec, prefix: resourcePrefix({ group: '', resource: 'pods' }) },
        caPem: deps.ca.certificate,
        logger,
        ...(deps.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: deps.bookmarkIntervalMs }),
        ...(deps.bodyLimit === undefined ? {} : { bodyLimit: deps.bodyLimit }),
      }),
    drain: () => {
      tunnels.goAwayAll();
      podRelay.closeAll();
    },
    stop: async () => {
      tunnels.closeAll();
      podRelay.closeAll();
      await controller.stop();
      stopCaches();
    },
  };
}

/** The site API's `serviceEvents` dependency: the site proxies' Events on Services, when placement and events are known. */
function serviceEventsOption(storage: VirtualClusterStorage, placement: PlacementView | undefined, recorder: EventRecorder | undefined): Pick<SiteApiDependencies, 'serviceEvents'> {
  const services = storage.storeFor({ group: '', resource: 'services' });
  if (placement === undefined || recorder === undefined || services === undefined) return {};
  return { serviceEvents: (sites, items) => recordServiceEvents({ services, placement, recorder }, sites, items) };
}

/** The site API's `placedObjects` dependency over the virtual clusters' stores, when placement is known. */
function placedObjectsOption(
  storage: VirtualClusterStorage,
  placement: PlacementView | undefined,
): { placedObjects?: (kind: PlacedObjectKind, sites: ReadonlySet<string>, wait?: PlacedObjectWait) => Promise<PlacedObjectList> } {
  if (placement === undefined) return {};
  const storeOf = (resource: string): GenericStore => {
    const store = storage.storeFor({ group: '', resource });
    if (store === undefined) throw new Error(`the virtual clusters have no ${resource} store`);
    return store;
  };
  return {
    placedObjects: async (kind, sites, wait) => {
      const store = storeOf(kind);
      // Endpoints are placed as their Service: a change of either may change the list.
      const services = kind === 'endpoints' ? storeOf('services') : undefined;
      if (wait !== undefined) await waitForPlacedChange(services === undefined ? [store] : [store, services], wait.after, wait.timeoutMs, wait.signal);
      return listPlacedObjects(store, placement, kind, sites, services);
    },
  };
}
