import { generateKeyPair, type KeyObject } from 'node:crypto';

/** The CA key algorithms: ECDSA P-256 (default) or RSA-2048 for relying parties that need RSA. */
export const IDENTITY_KEY_ALGORITHMS = ['ECDSA_P256', 'RSA_2048'] as const;
export type IdentityKeyAlgorithm = (typeof IDENTITY_KEY_ALGORITHMS)[number];
export const DEFAULT_IDENTITY_KEY_ALGORITHM: IdentityKeyAlgorithm = 'ECDSA_P256';

export interface KeyPair {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** A new key pair of `algorithm` (on the thread pool). */
export function generateCaKeyPair(algorithm: IdentityKeyAlgorithm): Promise<KeyPair> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKey: KeyObject, privateKey: KeyObject): void => (error === null ? resolve({ publicKey, privateKey }) : reject(error));
    if (algorithm === 'RSA_2048') generateKeyPair('rsa', { modulusLength: 2048 }, done);
    else generateKeyPair('ec', { namedCurve: 'P-256' }, done);
  });
}

