import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ensurePlatformPki } from '../identity/platform-ca.js';
import type { Logger } from '../observability/logger.js';
import { createMetrics } from '../observability/metrics.js';
import { startCompactor } from '../store/compactor.js';
import { instrumentStore } from '../store/instrumented-store.js';
import { describeStore, openStore, type StoreConfig } from '../store/open-store.js';
import type { Store } from '../store/types.js';
import { readBuildInfo, versionDocument } from './build-info.js';
import type { HealthCheck } from './health.js';
import { buildHttpServer } from './http-server.js';
import { type ListenAddress, urlFor } from './listen-address.js';

export interface ControlPlaneOptions {
  /** `$EDGEPLANE_HOME`: the PKI, the embedded store and credentials live here. */
  readonly home: string;
  readonly listen: ListenAddress;
  /** Where the store is; default: SQLite in `<home>/store/edgeplane.db`. */
  readonly store?: StoreConfig;
  readonly logger: Logger;
  readonly compactionIntervalMs?: number;
}

export interface ControlPlane {
  /** The HTTPS URL actually listened on (the real port when 0 was asked). */
  readonly url: string;
  readonly caCertPath: string;
  readonly store: Store;
  /** Graceful stop: readiness fails, in-flight requests finish, then the store closes. */
  close(): Promise<void>;
}

/** The composition root of `edgeplane server`: store, PKI, HTTP server, background work. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { logger } = options;
  const build = readBuildInfo();
  const metrics = createMetrics(build);
  const storeConfig: StoreConfig = options.store ?? { backend: 'sqlite', path: join(options.home, 'store', 'edgeplane.db') };
  const store = instrumentStore(openStore(storeConfig), storeConfig.backend, metrics);
  logger.info({ store: describeStore(storeConfig) }, 'store opened');

  const pki = await ensurePlatformPki({ dir: join(options.home, 'pki'), hosts: [options.listen.host] });
  logger.info({ outcome: pki.outcome, caCert: pki.caCertPath }, 'platform PKI ready');

  let shuttingDown = false;
  const ping: HealthCheck = { name: 'ping', run: () => Promise.resolve() };
  const storeCheck: HealthCheck = { name: storeConfig.backend, run: async () => void (await store.currentRevision()) };
  const shutdown: HealthCheck = {
    name: 'shutdown',
    run: () => (shuttingDown ? Promise.reject(new Error('the server is shutting down')) : Promise.resolve()),
  };
  const app = buildHttpServer({
    tls: { cert: pki.servingCert, key: pki.servingKey },
    logger,
    metrics,
    checks: { livez: [ping], readyz: [ping, storeCheck, shutdown], healthz: [ping, storeCheck] },
    version: versionDocument(build),
  });

  const stopCompactor = startCompactor(store, {
    logger,
    ...(options.compactionIntervalMs === undefined ? {} : { intervalMs: options.compactionIntervalMs }),
  });
  try {
    await app.listen({ host: options.listen.host, port: options.listen.port });
  } catch (error) {
    stopCompactor();
    await store.close();
    throw error;
  }
  const port = (app.server.address() as AddressInfo).port;
  const url = urlFor({ host: options.listen.host, port });
  logger.info({ url, caCert: pki.caCertPath, version: build.version }, 'serving HTTPS');

  let closing: Promise<void> | undefined;
  return {
    url,
    caCertPath: pki.caCertPath,
    store,
    close: () => {
      closing ??= (async () => {
        shuttingDown = true;
        logger.info('shutting down: finishing in-flight requests');
        stopCompactor();
        await app.close();
        await store.close();
        logger.info('shut down cleanly');
      })();
      return closing;
    },
  };
}
