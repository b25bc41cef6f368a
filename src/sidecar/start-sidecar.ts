import { resolve } from 'node:path';
import { createLogger, type Logger } from '../observability/logger.js';
import { type SiteTimers, systemTimers } from '../site/site-timers.js';
import { HttpsIdentityIssuer } from './https-identity-issuer.js';
import { DEFAULT_IDENTITY_DIR } from './identity-files.js';
import type { IdentityIssuer } from './identity-issuer.js';
import type { KeyAlgorithm } from './identity-request.js';
import { DEFAULT_LOOPBACK_ADDRESSES, type LoopbackAddress, parseLoopbackAddress, serveOnLoopback } from './loopback-listener.js';
import { SidecarDriver } from './sidecar-driver.js';
import type { SidecarEndpoint } from './sidecar-endpoint.js';
import { buildSidecarApp } from './sidecar-http-app.js';
import { type SidecarPolicy, sidecarPolicy } from './sidecar-policy.js';
import type { SidecarState, SidecarStateName } from './sidecar-state.js';

export interface StartSidecarOptions {
  /** The control plane's base URL (needed unless `issuer` is given). */
  readonly server?: string;
  /** The bootstrap token's file (needed unless `issuer` is given). */
  readonly tokenFile?: string;
  /** CA bundle to trust for the control plane instead of the CA pinned by the token. */
  readonly caFile?: string;
  /** Default `/svc/secrets/identity`. */
  readonly identityDir?: string;
  /** Loopback `host:port` values or addresses; default 127.0.0.1:8070 and [::1]:8070 when available. Port 0 picks one. */
  readonly listen?: readonly (string | LoopbackAddress)[];
  readonly policy?: Partial<SidecarPolicy>;
  /** Algorithm of the pod's key pairs (default ECDSA_P256). */
  readonly keyAlgorithm?: KeyAlgorithm;
  /** Default: a logger that logs nothing. */
  readonly logger?: Logger;
  readonly timers?: SiteTimers;
  readonly random?: () => number;
  /** Where identities come from; default the identity service at `server` over HTTPS. */
  readonly issuer?: IdentityIssuer;
  /** Resume from a still-valid identity left in the folder (default true). */
  readonly resume?: boolean;
  /** Default the status and identity endpoints. */
  readonly endpoints?: readonly SidecarEndpoint[];
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
  /** Stops requests and timers, then the HTTP servers. The files stay. */
  stop(): Promise<void>;
}

function issuerFor(options: StartSidecarOptions): IdentityIssuer {
  if (options.issuer !== undefined) return options.issuer;
  if (options.server === undefined || options.tokenFile === undefined) throw new Error('the sidecar needs --server and --token-file');
  return new HttpsIdentityIssuer({ server: options.server, tokenFile: resolve(options.tokenFile), ...(options.caFile === undefined ? {} : { caFile: resolve(options.caFile) }) });
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
  const logger = options.logger ?? createLogger({ level: 'silent' });
  const addresses = options.listen === undefined ? DEFAULT_LOOPBACK_ADDRESSES : options.listen.map((a) => (typeof a === 'string' ? parseLoopbackAddress(a) : a));
  if (addresses.length === 0) throw new Error('the sidecar needs at least one loopback address to listen on');
  const driver = new SidecarDriver({
    issuer: issuerFor(options),
    identityDir,
    policy: sidecarPolicy(options.policy),
    timers: options.timers ?? systemTimers(),
    random: options.random ?? Math.random,
    logger,
    ...(options.keyAlgorithm === undefined ? {} : { keyAlgorithm: options.keyAlgorithm }),
    ...(options.resume === undefined ? {} : { resume: options.resume }),
  });
  const app = buildSidecarApp({ view: driver, logger, ...(options.endpoints === undefined ? {} : { endpoints: options.endpoints }) });
  const servers = await serveOnLoopback(app, addresses);
  for (const skipped of servers.skipped) logger.info({ address: skipped }, 'optional listen address skipped');
  let markStopped = (): void => undefined;
  const stopped = new Promise<void>((done) => (markStopped = done));
  const ready = readinessOf(driver, stopped);
  ready.catch(() => undefined);
  driver.start();
  logger.info({ urls: servers.urls, identityDir }, 'sidecar listening');
  return {
    urls: servers.urls,
    identityDir,
    state: () => driver.current().kind,
    detail: () => driver.current(),
    whenReady: () => ready,
    onStateChange: (listener) => driver.onChange(listener),
    stop: async () => {
      await driver.stop();
      markStopped();
      await servers.close();
      logger.info({ state: driver.current().kind }, 'sidecar stopped');
    },
  };
}
