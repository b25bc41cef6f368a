import { type KeyObject, sign } from 'node:crypto';
import { derNull, oid, sequence } from './der/der-writer.js';

/** What signs certificates: the AlgorithmIdentifier it writes and the signature over the bytes. */
export interface Signer {
  /** DER AlgorithmIdentifier of the signatures (`signature` of TBSCertificate and Certificate). */
  readonly algorithmIdentifier: Buffer;
  /** Signs on libuv's thread pool (node:crypto's asynchronous sign), off the event loop. */
  sign(data: Buffer): Promise<Buffer>;
}

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));
const SHA256_WITH_RSA = sequence(oid('1.2.840.113549.1.1.11'), derNull());

/** A signer over a CA's private key: ECDSA with SHA-256 (DER signature) or RSASSA-PKCS1-v1_5 with SHA-256. */
export function signerFor(privateKey: KeyObject): Signer {
  const type = privateKey.asymmetricKeyType;
  if (type !== 'ec' && type !== 'rsa') throw new Error(`a CA key must be EC or RSA, not ${String(type)}`);
  return {
    algorithmIdentifier: type === 'ec' ? ECDSA_WITH_SHA256 : SHA256_WITH_RSA,
    sign: (data) =>
      new Promise((resolve, reject) => {
        sign('sha256', data, privateKey, (error, signature) => (error === null ? resolve(signature) : reject(error)));
      }),
  };
}
