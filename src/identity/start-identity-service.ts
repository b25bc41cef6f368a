import type { SiteType } from '../site-api/site-model.js';
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
import type { KeyEncryptionKey } from './key-encryption-key.js';
import { TokenAudit } from './token-audit.js';
import { loadTokenSigningKey, type TokenSigningKey } from './token-signing-key.js';
import { watchCacheWorkloads } from './workload-source.js';

export interface IdentityServiceStartOptions {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The key-encryption key the identity's keys are sealed under (the same on every server over the store). */
  readonly kek: KeyEncryptionKey;
  /** For CAs made from now on (default ECDSA P-256). */
  readonly keyAlgorithm?: IdentityKeyAlgorithm;
  /** Leaf certificate lifetime (default 24 h). */
  readonly certificateLifetimeMs?: number;
  /** Leaf certificate lifetime of pods on customer edges (default `certificateLifetimeMs`), their sites' types told by `siteTypeOf`. */
  readonly customerEdgeCertificateLifetimeMs?: number;
  readonly siteTypeOf?: (site: string) => SiteType | undefined;
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
  /** Adds `/api/identity/v1/…` to the server (before it listens); with `podsOnly`, only a pod's (issuance and renewal). */
  registerRoutes(app: FastifyInstance, options?: { readonly podsOnly?: boolean }): void;
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
 * Starts the identity service: loads (or makes) the identity root CA and the token signing
 * key from the store, and returns its routes. When the key-encryption key cannot open keys
 * another server sealed, it throws: the server does not start (as for the platform CA).
 */
export async function startIdentityService(options: IdentityServiceStartOptions): Promise<IdentityPlane> {
  const { store, clock, logger } = options;
  for (const lifetime of [options.certificateLifetimeMs, options.customerEdgeCertificateLifetimeMs]) {
    if (lifetime !== undefined && !(lifetime >= 60_000)) throw new Error(`the identity certificate lifetime must be at least a minute, not ${lifetime} ms`);
  }
  const { kek } = options;
  const random = options.random ?? randomBytes;
  let opened: { authorities: CertificateAuthorities; signingKey: TokenSigningKey };
  try {
    const authorities = await CertificateAuthorities.open({ store, kek, algorithm: options.keyAlgorithm ?? DEFAULT_IDENTITY_KEY_ALGORITHM, clock, logger, random });
    opened = { authorities, signingKey: await loadTokenSigningKey({ store, kek, clock, random }) };
  } catch (error) {
    // Another key sealed the records: servers over one store need one KEK.
    if (!(error instanceof IdentityError)) throw error;
    throw new Error(`the identity service cannot open its keys in the store: ${error.message}. Give every server over one store the same --identity-kek-file`);
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
    ...(options.customerEdgeCertificateLifetimeMs === undefined ? {} : { customerEdgeLifetimeMs: options.customerEdgeCertificateLifetimeMs }),
    ...(options.siteTypeOf === undefined ? {} : { siteTypeOf: options.siteTypeOf }),
  });
  return operationsPlane(service, { credentials: options.credentials, logger, sealer: kekSealer(kek, random), close: () => csrs.close() });
}

/** The plane over the service's operations. */
function operationsPlane(
  operations: IdentityOperations,
  context: { credentials: CredentialService; logger: Logger; sealer: KeySealer; close: () => Promise<void> },
): IdentityPlane {
  const { logger } = context;
  return {
    close: context.close,
    sealer: context.sealer,
    podCertificates: { verify: (socket) => operations.authenticatePod(peerCertificateOf(socket)) },
    registerRoutes: (app, options) =>
      registerIdentityApi(app, { service: operations, credentials: context.credentials, logger, ...(options?.podsOnly === true ? { podsOnly: true } : {}) }),
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
