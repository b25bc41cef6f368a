import type { IdentityKeyAlgorithm } from './identity-key-algorithm.js';
import type { SealedKey } from './sealed-key.js';

/**
 * Where the identity service keeps its keys and certificates in the store (shared by every
 * server over one store). Private keys are sealed; the record's key is the AAD.
 */
export const ROOT_CA_KEY = '/identity/root-ca';
export const TOKEN_SIGNING_KEY = '/identity/token-signing-key';
/** The platform CA (API serving, client and agent certificates): one for every server over the store. */
export const PLATFORM_CA_KEY = '/identity/platform-ca';
export const tenantCaKey = (tenant: string): string => `/identity/tenant-cas/${tenant}`;

/** The platform identity root CA. */
export interface RootCaRecord {
  readonly algorithm: IdentityKeyAlgorithm;
  /** PEM of the self-signed root. */
  readonly certificate: string;
  readonly key: SealedKey;
  readonly created: string;
}

/** A tenant's CA: one key, two certificates. */
export interface TenantCaRecord {
  readonly algorithm: IdentityKeyAlgorithm;
  /** PEM of the intermediate (signed by the root). */
  readonly certificate: string;
  /** PEM of the self-signed tenant trust anchor (same subject, key and key identifier). */
  readonly anchor: string;
  readonly key: SealedKey;
  readonly created: string;
}

/** The ES256 key bootstrap tokens are signed with. */
export interface TokenSigningKeyRecord {
  /** The JWK thumbprint (RFC 7638) of the public key: tokens' `kid`. */
  readonly kid: string;
  /** PEM SubjectPublicKeyInfo (verification needs no unsealing). */
  readonly publicKey: string;
  readonly key: SealedKey;
  readonly created: string;
}

/** The platform CA, shared by every server over the store. */
export interface PlatformCaRecord {
  /** PEM of the self-signed platform CA certificate. */
  readonly certificate: string;
  readonly key: SealedKey;
  /** Made by a server, or imported from the `<home>/pki` of a server that had made it there. */
  readonly origin: 'generated' | 'imported';
  readonly created: string;
}
