import { createPublicKey } from 'node:crypto';
import { BLINDFOLD_ENC } from './blindfold-format.js';
import type { PublicBlindfoldKey } from './blindfold-key-ring.js';

/** What `GET /api/secret_management/get_public_key` answers: everything offline encryption needs. */
export interface PublicKeyDocument {
  readonly data: {
    readonly tenant: string;
    readonly key_version: number;
    readonly algorithm: string;
    readonly content_encryption: string;
    readonly modulus_length: number;
    /** The public key as a JWK (RFC 7517) with `alg` and `use: "enc"`. */
    readonly public_key_jwk: Record<string, unknown>;
    /** The same key as SPKI PEM (for openssl and other tools). */
    readonly public_key_pem: string;
    readonly creation_timestamp: string;
  };
}

/** Pure (given the key): the public key document of one key version. */
export function publicKeyDocument(key: PublicBlindfoldKey): PublicKeyDocument {
  const jwk = createPublicKey(key.public_key_pem).export({ format: 'jwk' }) as Record<string, unknown>;
  return {
    data: {
      tenant: key.tenant,
      key_version: key.version,
      algorithm: key.algorithm,
      content_encryption: BLINDFOLD_ENC,
      modulus_length: key.modulus_length,
      public_key_jwk: { kty: jwk['kty'], n: jwk['n'], e: jwk['e'], alg: key.algorithm, use: 'enc' },
      public_key_pem: key.public_key_pem,
      creation_timestamp: key.creation_timestamp,
    },
  };
}
