import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platformClientCertificates } from '../../auth/client-certificates.js';
import { CredentialService } from '../../auth/credentials.js';
import { TenantService } from '../../config/tenant-service.js';
import { httpsRequest, type HttpsResponse } from '../../client/https-client.js';
import { ConfigService } from '../../config/config-service.js';
import { dnsResolver } from '../../config/dns-verification.js';
import { registerConfigApi } from '../../config/http/config-routes.js';
import { NAMESPACES_PREFIX } from '../../config/keys.js';
import { ObjectRegistry } from '../../config/registry.js';
import { ensurePlatformPki } from '../../identity/platform-ca.js';
import { createLogger } from '../../observability/logger.js';
import { createMetrics } from '../../observability/metrics.js';
import type { PlacementView } from '../../controllers/placement/placement-view.js';
import { systemClock } from '../../common/clock.js';
import { buildHttpServer } from '../../server/http-server.js';
import { openStore } from '../../store/open-store.js';
import { PrefixCache } from '../../store/prefix-cache.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { printerTableFormat } from '../../vk8s/http/printer-table-format.js';
import { registerVirtualClusterApi, virtualClusterVersion } from '../../vk8s/http/vk8s-routes.js';
import { startSitePlane, type SitePlane } from '../site-plane.js';
import { Registry } from 'prom-client';
import type { EventRecorder } from '../../controllers/events/event-recorder.js';

export interface SitePlaneHarness {
  readonly url: string;
  readonly ca: string;
  readonly store: Store;
  readonly adminToken: string;
  readonly platformToken: string;
  readonly sitePlane: SitePlane;
  readonly storage: VirtualClusterStorage;
  /** The site plane's metrics (Prometheus text). */
  metrics(): Promise<string>;
  /** A request with `Authorization: APIToken <token>` when given, or the client certificate. */
  call(method: string, path: string, options?: { token?: string; bearer?: string; body?: unknown; raw?: string; cert?: string; key?: string }): Promise<HttpsResponse>;
  close(): Promise<void>;
}

/**
 * A control plane with the site plane wired in, in this process (memory store, real HTTPS
 * with the platform CA asking for client certificates): the config API, the vK8s API with
 * the sites' node view, and the site API, composed as `control-plane.ts` would.
 */
export async function startSitePlaneHarness(options: { graceSeconds: number; bookmarkIntervalMs?: number; placement?: PlacementView; events?: EventRecorder; streamIdleTimeoutMs?: number; tunnelPingIntervalMs?: number }): Promise<SitePlaneHarness> {
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-sites-'));
  const logger = createLogger({ level: 'silent' });
  const store = openStore({ backend: 'memory' });
  const clock = systemClock();
  const pki = await ensurePlatformPki({ dir: join(home, 'pki'), hosts: ['127.0.0.1'] });
  const ca = { certificate: pki.caCert, key: pki.caKey };
  const configCache = new PrefixCache(store, '/config/', logger);
  const authCache = new PrefixCache(store, '/auth/', logger);
  const namespaceCache = new PrefixCache(store, NAMESPACES_PREFIX, logger);
  await Promise.all([configCache.start(), authCache.start(), namespaceCache.start()]);
  const registry = new ObjectRegistry(store, clock, (deletion) => configCache.observe(deletion));
  const credentials = new CredentialService(store, clock, platformClientCertificates(ca), authCache);
  await new TenantService(store, registry, credentials, logger).bootstrap(home, 'acme');
  const storage = new VirtualClusterStorage({ store, clock, logger });
  await storage.start();
  let url = '';
  const metricsRegistry = new Registry();
  const sitePlane = await startSitePlane({ store, clock, logger, metrics: metricsRegistry, registry, credentials, storage, ca, publicUrl: () => url, graceSeconds: options.graceSeconds, ...(options.events === undefined ? {} : { events: options.events }), ...(options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs }), ...(options.streamIdleTimeoutMs === undefined ? {} : { streamIdleTimeoutMs: options.streamIdleTimeoutMs }), ...(options.tunnelPingIntervalMs === undefined ? {} : { tunnelPingIntervalMs: options.tunnelPingIntervalMs }) });
  const build = { version: 'test', gitCommit: '' };
  const app = buildHttpServer({ tls: { cert: pki.servingCert, key: pki.servingKey, clientCa: pki.caCert }, logger, metrics: createMetrics(build), checks: { livez: [], readyz: [], healthz: [] }, version: {} });
  registerConfigApi(app, {
    service: new ConfigService(store, registry, namespaceCache),
    credentials,
    tenants: new TenantService(store, registry, credentials, logger),
    resolver: dnsResolver('127.0.0.1:9'),
    clock,
    logger,
    bodyLimit: 1024 * 1024,
    openapi: () => ({}),
    publicUrl: () => url,
  });
  registerVirtualClusterApi(app, { credentials, virtualK8sObjects: configCache, logger, version: virtualClusterVersion('test', 'linux/amd64'), storage, clock, tables: printerTableFormat(), nodes: sitePlane.nodeView, podStreams: sitePlane.podStreams, upgrades: (next) => sitePlane.tunnelUpgrades(next) });
  sitePlane.registerRoutes(app, options.placement === undefined ? {} : { placement: options.placement });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `https://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return {
    url,
    ca: pki.caCert,
    store,
    adminToken: readFileSync(join(home, 'api-token'), 'utf8').trim(),
    platformToken: readFileSync(join(home, 'platform-api-token'), 'utf8').trim(),
    sitePlane,
    storage,
    metrics: () => metricsRegistry.metrics(),
    call: (method, path, o = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (o.token !== undefined) headers['authorization'] = `APIToken ${o.token}`;
      if (o.bearer !== undefined) headers['authorization'] = `Bearer ${o.bearer}`;
      return httpsRequest(`${url}${path}`, pki.caCert, {
        method,
        headers,
        ...(o.raw !== undefined ? { body: o.raw } : o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
        ...(o.cert === undefined ? {} : { cert: o.cert, key: o.key ?? '' }),
      });
    },
    close: async () => {
      await app.close();
      await sitePlane.stop();
      storage.stop();
      for (const cache of [configCache, authCache, namespaceCache]) cache.stop();
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
