import { resolve } from 'node:path';
import { type ConnectTo, parseConnectTo } from '../client/connect-to.js';
import { type LevelLogger, SILENT_LOGGER } from '../observability/line-logger.js';
import { type Timers, systemTimers } from '../common/timers.js';
import { readBootstrapToken } from './bootstrap-token.js';
import { HttpsIdentityIssuer } from './https-identity-issuer.js';
import { DEFAULT_IDENTITY_DIR, type IdentityOwner, removeStaleTemporaryFiles } from './identity-files.js';
import type { IdentityIssuer } from './identity-issuer.js';
import type { KeyAlgorithm } from './identity-request.js';
import { DEFAULT_LOOPBACK_ADDRESSES, type LoopbackAddress, parseLoopbackAddress, serveOnLoopback } from './loopback-listener.js';
import { SidecarDriver } from './sidecar-driver.js';
import type { SidecarEndpoint } from './sidecar-endpoint.js';
import { buildSidecarApp } from './sidecar-http-app.js';
import { type SidecarPolicy, sidecarPolicy } from './sidecar-policy.js';
import type { SidecarState, SidecarStateName } from './sidecar-state.js';
import { IDENTITY_ENDPOINTS } from './sidecar-http-app.js';
import { ServerTrust } from './server-trust.js';
import { StateFile } from './state-file.js';
import { HttpsPlatformSecrets } from './unseal/https-platform-secrets.js';
import type { PlatformSecrets } from './unseal/platform-secrets.js';
import { SecretCache, type SecretCacheLimits, type SecretCacheStats } from './unseal/secret-cache.js';
import { SidecarUnsealer } from './unseal/sidecar-unsealer.js';
import { unsealEndpoint } from './unseal/unseal-endpoint.js';
import { VaultProviders } from './unseal/vault-providers.js';

export interface StartSidecarOptions {
  /** The control plane's base URL (needed unless `issuer` is given). */
  readonly server?: string;
  /** The bootstrap token's file (needed unless `issuer` is given). */
  readonly tokenFile?: string;
  /** CA bundle to trust for the control plane instead of the CA pinned by the token. */
  readonly caFile?: string;
  /**
   * Open every connection to `server` at this `host:port` instead (a relay, like curl's
   * `--connect-to`); TLS still checks the certificate against `server`'s host name.
   */
  readonly connectTo?: string | ConnectTo;
  /** Default `/svc/secrets/identity`. */
  readonly identityDir?: string;
  /** Give the identity files to this user and group, keys 0640 (needs CAP_CHOWN); default the sidecar's own, keys 0600. */
  readonly identityOwner?: IdentityOwner;
  /** Loopback `host:port` values or addresses; default 127.0.0.1:8070 and [::1]:8070 when available. Port 0 picks one. */
  readonly listen?: readonly (string | LoopbackAddress)[];
  /**
   * A file kept equal to the state, `{"state","since","reason"?}` (`StateFile`): written at start
   * (INITIALIZING) and on every change, atomically, mode 0600.
   */
  readonly stateFile?: string;
  readonly policy?: Partial<SidecarPolicy>;
  /** Algorithm of the pod's key pairs (default ECDSA_P256). */
  readonly keyAlgorithm?: KeyAlgorithm;
  /** Default: a logger that logs nothing. */
  readonly logger?: LevelLogger;
  readonly timers?: Timers;
  readonly random?: () => number;
  /** Where identities come from; default the identity service at `server` over HTTPS. */
  readonly issuer?: IdentityIssuer;
  /** Resume from a still-valid identity left in the folder (default true). */
  readonly resume?: boolean;
  /** Default the status and identity endpoints, and `POST /secret/unseal` when there is a control plane to ask (`server` or `secrets`). */
  readonly endpoints?: readonly SidecarEndpoint[];
  /** The control plane's secret API for unseal; default over mTLS at `server`, trusting what the identity client trusts. */
  readonly secrets?: PlatformSecrets;
  /** Bounds of the unseal cache (default 16 MiB and 4096 entries; 0 entries disables it). */
  readonly unsealCache?: Partial<SecretCacheLimits>;
  /** Per request to the control plane's secret API (default 15 s) and to Vault (default 10 s). */
  readonly unsealTimeoutMs?: number;
}

export interface RunningSidecar {
  /** The sidecar's base URLs, `http://127.0.0.1:8070` first. */
  readonly urls: readonly string[];
  readonly identityDir: string;
  /** The word `GET /status` answers. */
  state(): SidecarStateName;
  /** The full state (failures, last error, validity). */
  detail(): SidecarState;
  /** Resolves once an identity is served (READY, or DEGRADED which still serves it); rejects if the sidecar halts or stops first. */
  whenReady(): Promise<void>;
  /** Called after every change of state; returns the unsubscribe function. */
  onStateChange(listener: (state: SidecarState, previous: SidecarState) => void): () => void;
  /** Counts of the unseal cache (undefined without the unseal endpoint). */
  unsealCacheStats(): SecretCacheStats | undefined;
  /** Stops requests and timers, then the HTTP servers, drops the unseal cache. The files stay. */
  stop(): Promise<void>;
}

function issuerFor(options: StartSidecarOptions, trust: ServerTrust | undefined, connectTo: ConnectTo | undefined): IdentityIssuer {
  if (options.issuer !== undefined) return options.issuer;
  if (options.server === undefined || options.tokenFile === undefined) throw new Error('the sidecar needs --server and --token-file');
  return new HttpsIdentityIssuer({
    server: options.server,
    tokenFile: resolve(options.tokenFile),
    ...(options.caFile === undefined ? {} : { caFile: resolve(options.caFile) }),
    ...(trust === undefined ? {} : { trust }),
    ...(connectTo === undefined ? {} : { connectTo }),
  });
}

/** The control plane's secret API: given, or over mTLS at `server` trusting what the identity client trusts; none without a server. */
function platformSecretsFor(options: StartSidecarOptions, trust: ServerTrust | undefined, connectTo: ConnectTo | undefined): PlatformSecrets | undefined {
  if (options.secrets !== undefined) return options.secrets;
  if (options.server === undefined || trust === undefined) return undefined;
  const tokenFile = options.tokenFile === undefined ? undefined : resolve(options.tokenFile);
  return new HttpsPlatformSecrets({
    server: options.server,
    // Resolved by the first identity request already, unless the identity was resumed from files.
    trustedCa: () =>
      trust.resolve(() => {
        if (tokenFile === undefined) throw new Error('no --ca-file and no token file to read the CA pin from');
        return readBootstrapToken(tokenFile);
      }),
    ...(options.unsealTimeoutMs === undefined ? {} : { timeoutMs: options.unsealTimeoutMs }),
    ...(connectTo === undefined ? {} : { connectTo }),
  });
}

function readinessOf(driver: SidecarDriver, stopped: Promise<void>): Promise<void> {
  return new Promise((done, fail) => {
    const check = (state: SidecarState): boolean => {
      if (state.kind === 'READY' || state.kind === 'DEGRADED') done();
      else if (state.kind === 'HALTED') fail(new Error(`the sidecar halted (${state.reason})${state.lastError === undefined ? '' : `: ${state.lastError}`}`));
      else return false;
      return true;
    };
    if (check(driver.current())) return;
    const unsubscribe = driver.onChange((state) => check(state) && unsubscribe());
    void stopped.then(() => fail(new Error(`the sidecar stopped while ${driver.current().kind}`)));
  });
}

/**
 * Starts a sidecar in this process: the HTTP API on loopback first (so `/status` answers
 * INITIALIZING at once), then the driver (bootstrap, renewals, files). Used by the CLI, the
 * end-to-end tests and the benchmark.
 */
export async function startSidecar(options: StartSidecarOptions): Promise<RunningSidecar> {
  const identityDir = resolve(options.identityDir ?? DEFAULT_IDENTITY_DIR);
  const logger = options.logger ?? SILENT_LOGGER;
  const addresses = options.listen === undefined ? DEFAULT_LOOPBACK_ADDRESSES : options.listen.map((a) => (typeof a === 'string' ? parseLoopbackAddress(a) : a));
  if (addresses.length === 0) throw new Error('the sidecar needs at least one loopback address to listen on');
  const timers = options.timers ?? systemTimers();
  const connectTo = typeof options.connectTo === 'string' ? parseConnectTo(options.connectTo) : options.connectTo;
  const trust =
    options.server === undefined
      ? undefined
      : new ServerTrust({ server: options.server.replace(/\/+$/, ''), ...(options.caFile === undefined ? {} : { caFile: resolve(options.caFile) }), ...(connectTo === undefined ? {} : { connectTo }) });
  const driver = new SidecarDriver({
    issuer: issuerFor(options, trust, connectTo),
    identityDir,
    ...(options.identityOwner === undefined ? {} : { identityOwner: options.identityOwner }),
    policy: sidecarPolicy(options.policy),
    timers,
    random: options.random ?? Math.random,
    logger,
    ...(options.keyAlgorithm === undefined ? {} : { keyAlgorithm: options.keyAlgorithm }),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
  });
  const secrets = platformSecretsFor(options, trust, connectTo);
  const cache = new SecretCache(timers, options.unsealCache);
  const unsealer =
    secrets === undefined
      ? undefined
      : new SidecarUnsealer({ secrets, cache, vault: new VaultProviders({ secrets, now: () => timers.now(), ...(options.unsealTimeoutMs === undefined ? {} : { timeoutMs: options.unsealTimeoutMs }) }) });
  const endpoints = options.endpoints ?? (unsealer === undefined ? IDENTITY_ENDPOINTS : [...IDENTITY_ENDPOINTS, unsealEndpoint(unsealer, logger)]);
  const app = buildSidecarApp({ view: driver, logger, endpoints });
  const servers = await serveOnLoopback(app, addresses);
  const stale = await removeStaleTemporaryFiles(identityDir).catch((error: unknown) => {
    logger.warn({ dir: identityDir, error: error instanceof Error ? error.message : String(error) }, 'cannot read the identity folder');
    return [];
  });
  if (stale.length > 0) logger.info({ dir: identityDir, files: stale }, 'removed temporary files an earlier run left');
  for (const skipped of servers.skipped) logger.info({ address: skipped }, 'optional listen address skipped');
  const stateFilePath = options.stateFile === undefined ? undefined : resolve(options.stateFile);
  const stateFile = stateFilePath === undefined ? undefined : new StateFile(stateFilePath, logger);
  if (stateFile !== undefined) {
    stateFile.update(driver.current(), timers.now());
    driver.onChange((state) => stateFile.update(state, timers.now()));
  }
  let markStopped = (): void => undefined;
  const stopped = new Promise<void>((done) => (markStopped = done));
  const ready = readinessOf(driver, stopped);
  ready.catch(() => undefined);
  driver.start();
  logger.info({ urls: servers.urls, identityDir, ...(stateFilePath === undefined ? {} : { stateFile: stateFilePath }) }, 'sidecar listening');
  return {
    urls: servers.urls,
    identityDir,
    state: () => driver.current().kind,
    detail: () => driver.current(),
    whenReady: () => ready,
    onStateChange: (listener) => driver.onChange(listener),
    unsealCacheStats: () => (unsealer === undefined ? undefined : cache.stats()),
    stop: async () => {
      await driver.stop();
      await stateFile?.flushed();
      markStopped();
      await servers.close();
      unsealer?.close();
      logger.info({ state: driver.current().kind }, 'sidecar stopped');
    },
  };
}
