import type { IdentityBundle, IdentityCsrs } from './identity-bundle.js';

/** The pod's current client certificate (leaf + chain) and its key: what authenticates a renewal. */
export interface ClientCredential {
  readonly certificate: string;
  readonly key: string;
}

/**
 * Where identities come from: the identity service over HTTPS (`HttpsIdentityIssuer`), or a
 * local CA in tests. Both calls reject with an Error whose message says what went wrong
 * (never carrying the token or a key).
 */
export interface IdentityIssuer {
  /** `POST /api/identity/v1/certificates`, authenticated by the bootstrap token. */
  bootstrap(csrs: IdentityCsrs, signal: AbortSignal): Promise<IdentityBundle>;
  /** `POST /api/identity/v1/certificates/renew`, authenticated by mTLS with `credential`. */
  renew(csrs: IdentityCsrs, credential: ClientCredential, signal: AbortSignal): Promise<IdentityBundle>;
}
