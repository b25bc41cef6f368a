import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, type Logger } from '../../observability/logger.js';
import { type ControlPlane, type ControlPlaneOptions, startControlPlane } from '../control-plane.js';
import { httpsRequest, type HttpsResponse } from '../../client/https-client.js';
import type { PodStreamBackend } from '../../vk8s/streams/index.js';
import type { Clock } from '../../common/clock.js';
import type { Timers } from '../../common/timers.js';
import type { IdentityKeyAlgorithm } from '../../identity/identity-key-algorithm.js';
import { startTestDnsServer, type TestDnsServer } from '../../config/testing/dns-server.js';

export interface CallOptions {
  /** Token to send (default: the acme admin token); null sends no Authorization header. */
  readonly token?: string | null;
  readonly body?: unknown;
  /** Raw body text, sent as is. */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
  readonly cert?: string;
  readonly key?: string;
}

export interface ConfigHarness {
  readonly url: string;
  readonly ca: string;
  readonly home: string;
  readonly adminToken: string;
  readonly platformToken: string;
  readonly controlPlane: ControlPlane;
  readonly dns: TestDnsServer;
  call(method: string, path: string, options?: CallOptions): Promise<HttpsResponse>;
  close(): Promise<void>;
}

/** Control-plane settings tests change. */
export interface ConfigHarnessOptions {
  readonly bodyLimit?: number;
  readonly bookmarkIntervalMs?: number;
  readonly maxInflight?: { readonly readOnly: number; readonly mutating: number };
  readonly podStreams?: PodStreamBackend;
  readonly watchHistory?: number;
  readonly siteGraceSeconds?: number;
  readonly clock?: Clock;
  readonly controllers?: readonly string[];
  /** Timers on `clock` (see ControlPlaneOptions.clockTimers). */
  readonly clockTimers?: Timers;
  /** The control plane's logger (default silent); tests that inspect logs pass a capturing one. */
  readonly logger?: Logger;
  /** The secret service's identity-service dependencies (see ControlPlaneOptions.secrets). */
  readonly secrets?: ControlPlaneOptions['secrets'];
  readonly identityKekFile?: string;
  readonly identityKeyAlgorithm?: IdentityKeyAlgorithm;
  readonly identityCertificateLifetimeMs?: number;
  /**
   * Timeouts, connection caps, the configuration API's rate limit. Default: the server's,
   * except the rate limit, which is off (tests make many requests with one token quickly).
   */
  readonly limits?: ControlPlaneOptions['limits'];
}

/** The real control plane in this process (memory store, real HTTPS, a real test DNS server). */
export async function startConfigHarness(options: ConfigHarnessOptions = {}): Promise<ConfigHarness> {
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-config-'));
  const dns = await startTestDnsServer();
  let controlPlane: ControlPlane;
  try {
    controlPlane = await startControlPlane({
      home,
      listen: { host: '127.0.0.1', port: 0 },
      store: { backend: 'memory' },
      logger: options.logger ?? createLogger({ level: 'silent' }),
      dnsServer: dns.address,
      limits: { configApiRate: 0, ...options.limits },
      ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
      ...(options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs }),
      ...(options.maxInflight === undefined ? {} : { maxInflight: options.maxInflight }),
      ...(options.podStreams === undefined ? {} : { podStreams: options.podStreams }),
      ...(options.watchHistory === undefined ? {} : { watchHistory: options.watchHistory }),
      ...(options.siteGraceSeconds === undefined ? {} : { siteGraceSeconds: options.siteGraceSeconds }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.controllers === undefined ? {} : { controllers: options.controllers }),
      ...(options.clockTimers === undefined ? {} : { clockTimers: options.clockTimers }),
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
      ...(options.identityKekFile === undefined ? {} : { identityKekFile: options.identityKekFile }),
      ...(options.identityKeyAlgorithm === undefined ? {} : { identityKeyAlgorithm: options.identityKeyAlgorithm }),
      ...(options.identityCertificateLifetimeMs === undefined ? {} : { identityCertificateLifetimeMs: options.identityCertificateLifetimeMs }),
    });
  } catch (error) {
    await dns.stop();
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
  const adminToken = readFileSync(join(home, 'api-token'), 'utf8').trim();
  const platformToken = readFileSync(join(home, 'platform-api-token'), 'utf8').trim();
  return {
    url: controlPlane.url,
    ca,
    home,
    adminToken,
    platformToken,
    controlPlane,
    dns,
    call: (method, path, o = {}) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
      if (headers['content-type'] === '') delete headers['content-type'];
      const token = o.token === undefined ? adminToken : o.token;
      if (token !== null) headers['authorization'] = `APIToken ${token}`;
      const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body));
      return httpsRequest(`${controlPlane.url}${path}`, ca, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(o.cert === undefined ? {} : { cert: o.cert, key: o.key ?? '' }),
      });
    },
    close: async () => {
      await controlPlane.close();
      await dns.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
