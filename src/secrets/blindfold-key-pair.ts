import { generateKeyPair } from 'node:crypto';

/**
 * RSA-3072: 128-bit security (NIST SP 800-57 part 1), the level A256GCM is used at and the one
 * acceptable past 2030, for ciphertexts that sit in configuration for years. The price is the
 * private-key operation (each cache-miss unseal): about 5× slower than RSA-2048 (docs/SECRETS.md).
 */
export const BLINDFOLD_MODULUS_BITS = 3072;

export interface BlindfoldKeyPair {
  /** SPKI PEM. */
  readonly publicKeyPem: string;
  /** PKCS#8 PEM: sealed before it is stored, never logged. */
  readonly privateKeyPem: string;
}

/** Makes an RSA key pair (e = 65537) off the event loop. */
export function generateBlindfoldKeyPair(modulusLength = BLINDFOLD_MODULUS_BITS): Promise<BlindfoldKeyPair> {
  return new Promise((resolve, reject) => {
    generateKeyPair(
      'rsa',
      { modulusLength, publicExponent: 0x10001, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } },
      (error, publicKeyPem, privateKeyPem) => (error === null ? resolve({ publicKeyPem, privateKeyPem }) : reject(error)),
    );
  });
}
