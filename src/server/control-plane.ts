import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { platformClientCertificates } from '../auth/client-certificates.js';
import { CredentialService } from '../auth/credentials.js';
import { TenantService } from '../config/tenant-service.js';
import { ConfigService } from '../config/config-service.js';
import { dnsResolver } from '../config/dns-verification.js';
import { registerConfigApi } from '../config/http/config-routes.js';
import { configOpenApi } from '../config/openapi.js';
import { ObjectRegistry } from '../config/registry.js';
import type { IdentityKeyAlgorithm } from '../identity/identity-key-algorithm.js';
import { ensurePlatformPki } from '../identity/platform-ca.js';
import { loadSharedPlatformCa } from '../identity/shared-platform-ca.js';
import { startIdentityService } from '../identity/start-identity-service.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { startCompactor } from '../store/compactor.js';
import { instrumentStore } from '../store/instrumented-store.js';
import { trackStoreWrites } from '../store/write-health.js';
import { PrefixCache } from '../store/prefix-cache.js';
import { NAMESPACES_PREFIX } from '../config/keys.js';
import { describeStore, openStore, type StoreConfig } from '../store/open-store.js';
import type { Store } from '../store/types.js';
import { readBuildInfo, versionDocument } from './build-info.js';
import type { HealthCheck } from './health.js';
import { startSitePlane } from '../site-plane/site-plane.js';
import { identityIssuance } from './identity-issuance.js';
import type { SiteInventory } from '../controllers/placement/site-inventory.js';
import { startClusterJanitor } from '../vk8s/cluster-janitor.js';
import { createEventRecorder } from '../controllers/events/event-recorder.js';
import { defaultControllers, startControllerManager } from '../controllers/manager/controller-manager.js';
import type { Timers } from '../common/timers.js';
import { garbageCollectorController } from '../controllers/manager/garbage-collector-controller.js';
import { clusterSiteStatusController } from '../controllers/cluster-site-status/cluster-site-status-controller.js';
import { virtualK8sStatusWriter } from '../controllers/cluster-site-status/virtual-k8s-status-writer.js';
import { PlacementEngine } from '../controllers/placement/placement-engine.js';
import { createPodTemplateFor } from '../controllers/placement/pod-template-for.js';
import { VirtualClusterStorage } from '../vk8s/cluster-storage.js';
import { printerTableFormat } from '../vk8s/http/printer-table-format.js';
import { serverSideApply } from '../vk8s/server-side-apply.js';
import { registerVirtualClusterApi, virtualClusterVersion } from '../vk8s/http/vk8s-routes.js';
import { PlacementConfigIndex } from '../controllers/placement/config-index.js';
import { createSeedAnnotationAdmission } from '../controllers/placement/seed-annotation-admission-hook.js';
import type { PodStreamBackend } from '../vk8s/streams/index.js';
import { auditLogFile } from '../vk8s/audit/audit-log-file.js';
import { writeFileAtomic } from '../common/atomic-file.js';
import { makeTreePrivate } from '../common/private-tree.js';
import { systemClock, type Clock } from '../common/clock.js';
import { buildHttpServer } from './http-server.js';
import { closeWithin, openConnections } from './graceful-close.js';
import { openKeyEncryption } from './key-encryption.js';
import { buildPodApiServer } from './pod-api-server.js';
import { createSiteObject, type SiteRegistration } from './site-object.js';
import { connectionsWithinFileLimit, DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';
import { openFileLimit } from '../common/open-file-limit.js';
import { TokenBuckets } from '../common/token-buckets.js';
import { type ListenAddress, urlFor } from '../common/listen-address.js';
import { registerSecretApi } from '../secrets/http/secret-routes.js';
import type { KeySealer, PodCertificateVerifier } from '../secrets/ports.js';
import { createSecretService } from '../secrets/secret-service.js';
import { admissionChain } from '../vk8s/http/admission-hook.js';
import { NAMESPACE_METADATA_PREFIX, NamespaceMetadataStore } from '../vk8s/namespace-metadata.js';
import { createPodSecurityAdmission } from '../vk8s/pod-security/pod-security-admission.js';
import { podSecurityFloor } from '../vk8s/pod-security/cluster-floor.js';
import type { PodSecurityLevel } from '../api/pod-security/index.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';

export interface ControlPlaneOptions {
  /** `$EDGEPLANE_HOME`: the PKI, the embedded store and credentials live here. */
  readonly home: string;
  readonly listen: ListenAddress;
  /** Where the store is; default: SQLite in `<home>/store/edgeplane.db`. */
  readonly store?: StoreConfig;
  readonly logger: Logger;
  readonly compactionIntervalMs?: number;
  /** How often vK8s watches that allow bookmarks get one (default a minute; tests shorten it). */
  readonly bookmarkIntervalMs?: number;
  /** vK8s requests served at once before 429 (kube's max-requests-inflight, default 400 read-only / 200 mutating). */
  readonly maxInflight?: { readonly readOnly: number; readonly mutating: number };
  /**
   * Events each vK8s resource's watch cache keeps for watches resuming from a past
   * resourceVersion (default 1000). Older ones get 410 Expired; tests make it small to provoke that.
   */
  readonly watchHistory?: number;
  /** The tenant created on first start, with its admin token in `<home>/api-token`. Default `acme`. */
  readonly defaultTenant?: string;
  /** DNS server (`host:port`) for dns_domain verification; default: the system's resolvers. */
  readonly dnsServer?: string;
  /** Largest configuration API request body, in bytes. Default 1 MiB. */
  readonly bodyLimit?: number;
  /** What runs the virtual clusters' pods (exec, attach, port-forward, logs). Default: no container runs (kubelet's refusals). */
  readonly podStreams?: PodStreamBackend;
  /** The audit log of pod sessions (exec, attach, port-forward), JSON lines; default `<home>/audit/sessions.log`. */
  readonly auditLogPath?: string;
  /** Seconds without a heartbeat before a site is FAILED and its Nodes NotReady (default 40, kube's node-monitor-grace-period). */
  readonly siteGraceSeconds?: number;
  /** What time it is (tests move it to run CronJobs); default the system clock. */
  readonly clock?: Clock;
  /**
   * The controllers to run, by name (default: all). Tests of the API's wire behaviour over
   * fixed objects run only the garbage collector, as kube-apiserver's integration tests run
   * without kube-controller-manager; none (`[]`) means no controller manager at all.
   */
  readonly controllers?: readonly string[];
  /**
   * Timers on `clock`'s time, for what sleeps until a wall-clock time (CronJob schedules):
   * tests that move the clock pass timers that fire when it passes their time. Default real timers.
   */
  readonly clockTimers?: Timers;
  /**
   * Secrets (issue 7): replaces what the secret service takes from the identity service — the
   * sealer of the blindfold private keys and the verifier of pods' client certificates (tests
   * that inject pod identities). Default: the identity service's.
   */
  readonly secrets?: { readonly sealer: KeySealer; readonly podCertificates: PodCertificateVerifier };
  /**
   * The key-encryption key file (32 bytes: raw, hex or base64) sealing the platform CA's and the
   * identity service's private keys in the store, supplied by the operator — the same file on
   * every server over one store; default `<home>/keys/identity.kek`, made on first start.
   */
  readonly identityKekFile?: string;
  /**
   * Key-encryption keys the current one replaced (files like it): what they sealed or
   * encrypted stays readable until `edgeplane store re-encrypt` has moved it under the current key.
   */
  readonly previousKekFiles?: readonly string[];
  /** Key algorithm of identity CAs made from now on (default ECDSA P-256). */
  readonly identityKeyAlgorithm?: IdentityKeyAlgorithm;
  /** Lifetime of workload certificates (default 24 h). */
  readonly identityCertificateLifetimeMs?: number;
  /** Lifetime of the certificates of pods on customer edges (default: the one above), how long they keep an identity offline. */
  readonly identityCustomerEdgeCertificateLifetimeMs?: number;
  /** exec, attach and port-forward sessions idle this long are closed (default 4 h). */
  readonly streamIdleTimeoutMs?: number;
  /** How long a stop waits for requests in progress before it cuts the connections still open (default 30 s). */
  readonly shutdownTimeoutMs?: number;
  /** Timeouts, connection caps and the configuration API's rate limit; each one left out is {@link DEFAULT_SERVER_LIMITS}'s. */
  readonly limits?: Partial<ServerLimits>;
}

export interface ControlPlane {
  /** The HTTPS URL actually listened on (the real port when 0 was asked). */
  readonly url: string;
  readonly caCertPath: string;
  readonly store: Store;
  /**
   * Creates a site object as the platform does when a site registers (sites have no public
   * create). Used by site registration, and by tests until registration exists.
   */
  registerSite(site: SiteRegistration): Promise<void>;
  /** Every virtual cluster's storage: the platform's own client for the kinds only it writes (pods, nodes, events…). */
  readonly virtualClusters: VirtualClusterStorage;
  /** Registered sites: their Nodes, states and quotas. */
  readonly sites: SiteInventory;
  /** Graceful stop within `shutdownTimeoutMs` (graceful-close.ts): readiness fails, watches end, tunnels get GOAWAY; then the store closes. */
  close(): Promise<void>;
}

/** The composition root of `edgeplane server`: store, PKI, HTTP server, identity service, background work. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { logger } = options;
  const build = readBuildInfo();
  const metrics = createMetrics(build);
  // Everything under the home is the user's alone (tokens, keys, the store): fixed, and said so, at every start.
  for (const path of makeTreePrivate(options.home)) logger.warn({ path }, 'made private: group and others had access');
  const storeConfig: StoreConfig = options.store ?? { backend: 'sqlite', path: join(options.home, 'store', 'edgeplane.db') };
  // Writes watched: one refused by the storage (a full disk) is logged and fails /readyz's store-writable.
  const writes = trackStoreWrites(instrumentStore(openStore(storeConfig), storeConfig.backend, metrics), { where: describeStore(storeConfig), logger });
  const store = writes.store;
  logger.info({ store: describeStore(storeConfig) }, 'store opened');
  // What to undo, newest first, when the start fails half-way or the server stops.
  const cleanups: Array<() => void | Promise<void>> = [() => store.close()];
  const cleanUp = async (): Promise<void> => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups.length = 0;
  };

  try {
    const clock = options.clock ?? systemClock();
    // Secrets at rest are envelope-encrypted under the identity service's key-encryption key.
    const { kek, encryption } = openKeyEncryption(options, logger);
    // One platform CA for every server over the store (sealed there under the KEK); each server its own serving certificate.
    const pkiDir = join(options.home, 'pki');
    // Real time, not `clock`: TLS peers check validity against theirs.
    const shared = await loadSharedPlatformCa({ store, kek, dir: pkiDir, now: new Date() });
    const pki = await ensurePlatformPki({ dir: pkiDir, hosts: [options.listen.host], ca: shared.ca });
    logger.info({ ca: shared.origin, outcome: pki.outcome, caCert: pki.caCertPath }, 'platform PKI ready');

    // Every vK8s request finds its virtual_k8s object here, not with a store read.
    const placementIndex = new PlacementConfigIndex(logger);
    const configCache = new PrefixCache(store, '/config/', logger, placementIndex);
    cleanups.push(() => configCache.stop());
    await configCache.start();
    const registry = new ObjectRegistry(store, clock, (deletion) => configCache.observe(deletion), encryption);
    const authCache = new PrefixCache(store, '/auth/', logger);
    const namespaceCache = new PrefixCache(store, NAMESPACES_PREFIX, logger);
    cleanups.push(() => authCache.stop(), () => namespaceCache.stop());
    await Promise.all([authCache.start(), namespaceCache.start()]);
    const credentials = new CredentialService(store, clock, platformClientCertificates({ certificate: pki.caCert, key: pki.caKey }), authCache);
    const tenants = new TenantService(store, registry, credentials, logger);
    await tenants.bootstrap(options.home, options.defaultTenant ?? 'acme');
    const service = new ConfigService(store, registry, namespaceCache);

    let shuttingDown = false;
    const ping: HealthCheck = { name: 'ping', run: () => Promise.resolve() };
    const storeCheck: HealthCheck = { name: storeConfig.backend, run: async () => void (await store.currentRevision()) };
    const shutdown: HealthCheck = {
      name: 'shutdown',
      run: () => (shuttingDown ? Promise.reject(new Error('the server is shutting down')) : Promise.resolve()),
    };
    const bodyLimit = options.bodyLimit ?? 1024 * 1024;
    const limits = connectionsWithinFileLimit({ ...DEFAULT_SERVER_LIMITS, ...options.limits }, openFileLimit());
    if (limits.clampedFrom !== undefined) {
      logger.warn({ maxConnections: limits.maxConnections, asked: limits.clampedFrom }, 'the connection cap was lowered to fit the open-file limit (ulimit -n)');
    }
    const app = buildHttpServer({
      tls: { cert: pki.servingCert, key: pki.servingKey, clientCa: pki.caCert },
      logger,
      metrics,
      checks: { livez: [ping], readyz: [ping, storeCheck, writes.check, shutdown], healthz: [ping, storeCheck] },
      version: versionDocument(build),
      bodyLimit,
      limits,
    });
    let url = '';
    const openapi = configOpenApi(build.version);
    registerConfigApi(app, {
      service,
      credentials,
      tenants,
      resolver: dnsResolver(options.dnsServer),
      clock,
      logger,
      bodyLimit,
      openapi: () => openapi,
      publicUrl: () => url,
      ...(limits.configApiRate > 0
        ? {
            rateLimit: {
              buckets: new TokenBuckets({ ratePerSecond: limits.configApiRate, burst: limits.configApiBurst }),
              refused: (key) => metrics.abuse.rateLimited.inc({ api: 'config', key }),
            },
          }
        : {}),
    });

    const versionInfo = versionDocument(build);
    const fieldManager = serverSideApply();
    const clusters = new VirtualClusterStorage({
      store,
      clock,
      logger,
      fieldManagement: fieldManager.fieldManagement,
      metrics: metrics.watchCache,
      encryption,
      ...(options.watchHistory === undefined ? {} : { watchHistory: options.watchHistory }),
    });
    cleanups.push(() => clusters.stop());
    await clusters.start();
    // The event recorder tells users why (placement, the node lifecycle, the controllers).
    const events = createEventRecorder({ storage: clusters, clock, logger });
    const sitePlane = await startSitePlane({
      store,
      clock,
      logger,
      metrics: metrics.registry,
      events,
      registry,
      credentials,
      storage: clusters,
      ca: { certificate: pki.caCert, key: pki.caKey },
      publicUrl: () => url,
      ...(options.siteGraceSeconds === undefined ? {} : { graceSeconds: options.siteGraceSeconds }),
      ...(options.streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs: options.streamIdleTimeoutMs }),
      ...(options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs }),
      ...(options.watchHistory === undefined ? {} : { watchHistory: options.watchHistory }),
    });
    cleanups.push(() => sitePlane.stop());
    const identity = await startIdentityService({
      store,
      clock,
      logger,
      kek,
      storage: clusters,
      credentials,
      platformCaPem: pki.caCert,
      ...identityIssuance(options, sitePlane.inventory),
    });
    cleanups.push(() => identity.close());
    identity.registerRoutes(app);
    // Secrets (issue 7): per-tenant blindfold keys sealed under the identity KEK, unseal for
    // pods' client certificates, policies read from the config cache.
    const secretDeps = options.secrets ?? { sealer: identity.sealer, podCertificates: identity.podCertificates };
    const secrets = createSecretService({ store, sealer: secretDeps.sealer, config: configCache, clock, logger, metrics: metrics.registry, encryption });
    const secretApi = { secrets, credentials, configService: service, podCertificates: secretDeps.podCertificates, logger, bodyLimit };
    registerSecretApi(app, secretApi);
    // What pods reach through their sites' relays: the sidecar's routes alone, on the same certificate.
    const podApi = await buildPodApiServer({
      tls: { cert: pki.servingCert, key: pki.servingKey, clientCa: pki.caCert },
      logger,
      metrics,
      limits,
      caPem: pki.caCert,
      routes: (pods) => {
        identity.registerRoutes(pods, { podsOnly: true });
        registerSecretApi(pods, { ...secretApi, podsOnly: true });
      },
    });
    cleanups.push(() => podApi.close());
    cleanups.push(startClusterJanitor({ store, storage: clusters, logger }));
    // Controllers (leader-elected through a store lease): placement decides the sites, the
    // event recorder tells users why, the site pod template applies flavors and site facts.
    const placement = new PlacementEngine({ index: placementIndex, siteStates: sitePlane.inventory, recorder: events, logger });
    sitePlane.registerRoutes(app, { placement, podIdentityTokens: identity.podTokenForSite });
    const starters = [
      ...defaultControllers({ platformVersion: build.version, ...(options.clockTimers === undefined ? {} : { cronJobTimers: options.clockTimers }) }),
      garbageCollectorController({ metrics: metrics.registry }),
      clusterSiteStatusController({ writer: virtualK8sStatusWriter(registry) }),
    ].filter((c) => options.controllers?.includes(c.name) ?? true);
    // No controllers asked for: this server does not even campaign (tests that run their own manager).
    if (starters.length > 0) {
      const controllers = await startControllerManager({
        store,
        storage: clusters,
        placement,
        podTemplateFor: createPodTemplateFor(placementIndex),
        events,
        sites: sitePlane.inventory,
        clock,
        logger,
        metrics: metrics.registry,
        controllers: starters,
      });
      cleanups.push(() => controllers.stop());
    }
    // The clusters' namespace labels (Pod Security's policy), read by admission from memory.
    const namespaceMetadataCache = new PrefixCache(store, NAMESPACE_METADATA_PREFIX, logger);
    cleanups.push(() => namespaceMetadataCache.stop());
    await namespaceMetadataCache.start();
    const namespaceMetadata = new NamespaceMetadataStore(store, namespaceMetadataCache);
    const floor = (cluster: ClusterRef): PodSecurityLevel => podSecurityFloor((key) => configCache.lookup(key), cluster);
    registerVirtualClusterApi(app, {
      credentials,
      virtualK8sObjects: configCache,
      logger,
      version: virtualClusterVersion(build.version, versionInfo['platform'] ?? 'linux/amd64'),
      storage: clusters,
      clock,
      tables: printerTableFormat(),
      apply: fieldManager.apply,
      podStreams: options.podStreams ?? sitePlane.podStreams,
      upgrades: (next) => sitePlane.tunnelUpgrades(sitePlane.podRelayUpgrades((socket) => podApi.serve(socket), next)),
      sessionAudit: auditLogFile(options.auditLogPath ?? join(options.home, 'audit', 'sessions.log'), logger),
      nodes: sitePlane.nodeView,
      ...(options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs }),
      ...(options.maxInflight === undefined ? {} : { maxInflight: options.maxInflight }),
      admission: admissionChain(
        createSeedAnnotationAdmission(placementIndex),
        createPodSecurityAdmission({ namespaceLabels: (cluster) => namespaceMetadata.labels(cluster), floor }),
      ),
      namespaces: { metadata: namespaceMetadata, floor },
    });

    const stopCompactor = startCompactor(store, {
      logger,
      ...(options.compactionIntervalMs === undefined ? {} : { intervalMs: options.compactionIntervalMs }),
    });
    cleanups.push(stopCompactor);
    const connections = openConnections(app.server);
    await app.listen({ host: options.listen.host, port: options.listen.port });
    cleanups.push(async () => {
      shuttingDown = true;
      const timeoutMs = options.shutdownTimeoutMs ?? 30_000;
      logger.info({ timeoutMs }, 'shutting down: finishing in-flight requests');
      sitePlane.drain();
      await closeWithin(app, connections, timeoutMs, logger);
    });
    const port = (app.server.address() as AddressInfo).port;
    url = urlFor({ host: options.listen.host === '0.0.0.0' ? '127.0.0.1' : options.listen.host, port });
    writeFileAtomic(join(options.home, 'server-url'), url + '\n', 0o600);
    logger.info({ url, caCert: pki.caCertPath, version: build.version }, 'serving HTTPS');

    let closing: Promise<void> | undefined;
    return {
      url,
      caCertPath: pki.caCertPath,
      store,
      virtualClusters: clusters,
      sites: sitePlane.inventory,
      registerSite: (site) => createSiteObject(registry, site),
      close: () => {
        closing ??= cleanUp().then(() => logger.info('shut down cleanly'));
        return closing;
      },
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
