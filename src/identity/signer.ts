import { type KeyObject, sign } from 'node:crypto';
import { derNull, oid, sequence } from '../common/der/der-writer.js';

/** What signs certificates: the AlgorithmIdentifier it writes and the signature over the bytes. */
export interface Signer {
  /** DER AlgorithmIdentifier of the signatures (`signature` of TBSCertificate and Certificate). */
  readonly algorithmIdentifier: Buffer;
  /** The signature over `data` (DER ECDSA-Sig-Value, or PKCS#1 v1.5). */
  sign(data: Buffer): Promise<Buffer>;
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), derNull());

/**
 * A signer over a CA's private key: ECDSA with SHA-256 (DER signature) or RSASSA-PKCS1-v1_5
 * with SHA-256. ECDSA P-256 signs on the event loop: about 35 µs, while handing the job to
 * libuv's thread pool costs the event loop nearly as much and the process twice as much CPU
 * (measured: 2 leaves 188 µs on the event loop and 348 µs in all asynchronously, 196 and
 * 206 µs synchronously). RSA-2048 (over 1 ms) signs on the thread pool.
 */
export function signerFor(privateKey: KeyObject): Signer {
  const type = privateKey.asymmetricKeyType;
  if (type === 'ec') return { algorithmIdentifier: ECDSA_WITH_SHA256, sign: (data) => Promise.resolve(sign('sha256', data, privateKey)) };
  if (type !== 'rsa') throw new Error(`a CA key must be EC or RSA, not ${String(type)}`);
  return {
    algorithmIdentifier: SHA256_WITH_RSA,
    sign: (data) =>
      new Promise((resolve, reject) => {
        sign('sha256', data, privateKey, (error, signature) => (error === null ? resolve(signature) : reject(error)));
      }),
  };
}
