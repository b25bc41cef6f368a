import { peerCertificateOf } from './peer-certificate.js';
import type { WorkloadIdentity } from './identity-extension.js';
import { kekSealer, type KeySealer } from './key-sealer.js';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { CredentialService } from '../auth/credentials.js';
import type { Logger } from '../observability/logger.js';
import type { Clock } from '../common/clock.js';
import { caPin } from '../site-api/registration-token.js';
import type { Store } from '../store/types.js';
import type { VirtualClusterStorage } from '../vk8s/cluster-storage.js';
import { BootstrapTokens } from './bootstrap-tokens.js';
import { CertificateAuthorities } from './certificate-authorities.js';
import { csrVerifierPool, defaultCsrWorkers, inProcessCsrVerifier } from './csr-verifier-pool.js';
import type { BootstrapToken } from '../site-api/identity-bundle.js';
import { IdentityError } from './identity-error.js';
import { DEFAULT_IDENTITY_KEY_ALGORITHM, type IdentityKeyAlgorithm } from './identity-key-algorithm.js';
import { registerIdentityApi } from './identity-routes.js';
import { type IdentityOperations, IdentityService } from './identity-service.js';
import { kekFileIsExposed, type KeyEncryptionKey, loadKeyEncryptionKey } from './key-encryption-key.js';
import { TokenAudit } from './token-audit.js';
import { loadTokenSigningKey, type TokenSigningKey } from './token-signing-key.js';
import { UnavailableIdentity } from './unavailable-identity.js';
import { watchCacheWorkloads } from './workload-source.js';

export interface IdentityServiceStartOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  /** `$EDGEPLANE_HOME`: the key-encryption key is `<home>/keys/identity.kek` unless `kekFile` is given. */
  readonly home: string;
  /** An operator-supplied key-encryption key file (32 bytes raw, hex or base64). */
  readonly kekFile?: string;
  /** The key-encryption key loaded already (the server's, with its previous keys); `home` and `kekFile` are then not read. */
  readonly kek?: KeyEncryptionKey;
  /** For CAs made from now on (default ECDSA P-256). */
  readonly keyAlgorithm?: IdentityKeyAlgorithm;
  /** Leaf certificate lifetime (default 24 h). */
  readonly certificateLifetimeMs?: number;
  /** Started: pods, Services and Events. */
  readonly storage: VirtualClusterStorage;
  /** Config API credentials (admins minting tokens). */
  readonly credentials: CredentialService;
  /** PEM of the platform API CA: bootstrap tokens carry its pin. */
  readonly platformCaPem: string;
  readonly random?: (bytes: number) => Buffer;
  /** Worker threads verifying CSRs (default: every core but one, at least one); 0 verifies on the event loop. */
  readonly csrWorkers?: number;
}

/** The running identity service, as the composition root wires it. */
export interface IdentityPlane {
  /** Adds `/api/identity/v1/…` to the server (before it listens). */
  registerRoutes(app: FastifyInstance): void;
  /** The site API's `POST /pods/identity-token`: failures are StatusErrors, as that API answers them. */
  readonly podTokenForSite: (agentSites: ReadonlySet<string>, body: unknown) => Promise<BootstrapToken>;
  /** The KEK as a sealer for other services' keys (the blindfold key ring). */
  readonly sealer: KeySealer;
  /** Who a TLS client is: a pod's valid client certificate whose pod still exists (the secret service's unseal). */
  readonly podCertificates: { verify(socket: unknown): Promise<WorkloadIdentity> };
  /** Stops the CSR verifier workers. */
  close(): Promise<void>;
}

/**
 * Starts the identity service: reads (or makes) the key-encryption key, loads (or makes)
 * the identity root CA and the token signing key from the store, and returns its routes.
 * When this server's key-encryption key cannot open keys another server sealed, the server
 * still starts and the identity routes answer 503 with the reason (logged as an error).
 */
export async function startIdentityService(options: IdentityServiceStartOptions): Promise<IdentityPlane> {
  const { store, clock, logger } = options;
  if (options.certificateLifetimeMs !== undefined && !(options.certificateLifetimeMs >= 60_000)) throw new Error(`the identity certificate lifetime must be at least a minute, not ${options.certificateLifetimeMs} ms`);
  const random = options.random ?? randomBytes;
  const kek = options.kek ?? loadKeyEncryptionKey({ home: options.home, ...(options.kekFile === undefined ? {} : { file: options.kekFile }), random });
  logger.info({ path: kek.path, created: kek.created, id: kek.id, ...(kek.previous === undefined ? {} : { previous: kek.previous.map((k) => k.id) }) }, 'identity key-encryption key ready');
  if (kekFileIsExposed(kek.path)) logger.warn({ path: kek.path }, 'the identity key-encryption key file is readable by other users than its owner; make it mode 0600');
  let opened: { authorities: CertificateAuthorities; signingKey: TokenSigningKey };
  try {
    const authorities = await CertificateAuthorities.open({ store, kek, algorithm: options.keyAlgorithm ?? DEFAULT_IDENTITY_KEY_ALGORITHM, clock, logger, random });
    opened = { authorities, signingKey: await loadTokenSigningKey({ store, kek, clock, random }) };
  } catch (error) {
    // Another key sealed the records (servers over one store need one KEK): the rest of the server still serves.
    if (!(error instanceof IdentityError)) throw error;
    logger.error({ reason: error.message }, 'the identity service cannot open its keys; its API answers 503 on this server (give every server the same --identity-kek-file)');
    return operationsPlane(new UnavailableIdentity(error.message), { credentials: options.credentials, logger, sealer: kekSealer(kek, random), close: () => Promise.resolve() });
  }
  const events = options.storage.storeFor({ group: '', resource: 'events' });
  if (events === undefined) throw new Error('the virtual clusters have no events store');
  const workers = options.csrWorkers ?? defaultCsrWorkers();
  const csrs = workers === 0 ? inProcessCsrVerifier() : csrVerifierPool(workers);
  const service = new IdentityService({
    authorities: opened.authorities,
    tokens: new BootstrapTokens(opened.signingKey, clock, caPin(options.platformCaPem)),
    workloads: watchCacheWorkloads(options.storage, store),
    audit: new TokenAudit(events, clock),
    csrs,
    clock,
    random,
    ...(options.certificateLifetimeMs === undefined ? {} : { lifetimeMs: options.certificateLifetimeMs }),
  });
  return operationsPlane(service, { credentials: options.credentials, logger, sealer: kekSealer(kek, random), close: () => csrs.close() });
}

/** The plane over the service's operations (or the unavailable ones). */
function operationsPlane(
  operations: IdentityOperations,
  context: { credentials: CredentialService; logger: Logger; sealer: KeySealer; close: () => Promise<void> },
): IdentityPlane {
  const { logger } = context;
  return {
    close: context.close,
    sealer: context.sealer,
    podCertificates: { verify: (socket) => operations.authenticatePod(peerCertificateOf(socket)) },
    registerRoutes: (app) => registerIdentityApi(app, { service: operations, credentials: context.credentials, logger }),
    podTokenForSite: async (agentSites, body) => {
      try {
        return await operations.tokenForSite(agentSites, body);
      } catch (error) {
        if (!(error instanceof IdentityError)) logger.error({ err: error }, 'site identity token request failed');
        throw IdentityError.from(error).toStatusError();
      }
    },
  };
}
