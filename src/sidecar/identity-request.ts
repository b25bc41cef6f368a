import { generateKeyPair, type KeyObject, sign } from 'node:crypto';
import { bitString, derNull, explicit, oid, sequence, smallInteger } from '../common/der/der-writer.js';
import { distinguishedName } from '../common/der/distinguished-name.js';
import { pemEncode } from '../common/der/pem.js';
import type { IdentityCsrs } from './identity-bundle.js';

/** The key algorithms the sidecar can make its key pairs with (the identity service signs both). */
export const KEY_ALGORITHMS = ['ECDSA_P256', 'RSA_2048'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** The identity service ignores everything in a CSR but its public key; the subject only names the requester. */
const CSR_SUBJECT = distinguishedName([['CN', 'edgeplane-sidecar']]);

/** The CSR's signatureAlgorithm per key algorithm: ecdsa-with-SHA256, sha256WithRSAEncryption (parameters NULL). */
const SIGNATURE_ALGORITHM: Record<KeyAlgorithm, Buffer> = {
  ECDSA_P256: sequence(oid('1.2.840.10045.4.3.2')),
  RSA_2048: sequence(oid('1.2.840.113549.1.1.11'), derNull()),
};

/** One request for an identity: the CSRs to send and the private keys that stay in the pod. */
export interface IdentityRequest {
  readonly csrs: IdentityCsrs;
  /** PKCS#8 PEM private keys; never sent anywhere. */
  readonly serverKey: string;
  readonly clientKey: string;
  /** DER SubjectPublicKeyInfo of each key pair, to check the certificates that come back. */
  readonly serverPublicKey: Uint8Array;
  readonly clientPublicKey: Uint8Array;
}

/** A new key pair, made on the thread pool (an RSA key takes tens of milliseconds). */
function generateKeys(algorithm: KeyAlgorithm): Promise<{ publicKey: KeyObject; privateKey: KeyObject }> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, publicKey: KeyObject, privateKey: KeyObject): void => (error === null ? resolve({ publicKey, privateKey }) : reject(error));
    if (algorithm === 'ECDSA_P256') generateKeyPair('ec', { namedCurve: 'P-256' }, done);
    else generateKeyPair('rsa', { modulusLength: 2048, publicExponent: 0x10001 }, done);
  });
}

/**
 * A key pair and its PKCS#10 request (RFC 2986): CertificationRequestInfo (version 0, the
 * subject, the SubjectPublicKeyInfo, no attributes) signed with the new key, SHA-256
 * (ECDSA signatures DER-encoded, RSA PKCS#1 v1.5). Built with the identity service's own DER
 * writer and node:crypto: a JavaScript ASN.1 library took most of a sidecar's start.
 */
async function csrAndKey(algorithm: KeyAlgorithm): Promise<{ csr: string; key: string; publicKey: Uint8Array }> {
  const { publicKey, privateKey } = await generateKeys(algorithm);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const info = sequence(smallInteger(0), CSR_SUBJECT, spki, explicit(0, Buffer.alloc(0)));
  const signature = sign('sha256', info, privateKey);
  return {
    csr: pemEncode(sequence(info, SIGNATURE_ALGORITHM[algorithm], bitString(signature)), 'CERTIFICATE REQUEST'),
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: new Uint8Array(spki),
  };
}

/**
 * Makes two new key pairs in this process (server and client) and a PKCS#10 request for each,
 * signed with its own key. Every bootstrap and every renewal uses new key pairs.
 */
export async function createIdentityRequest(algorithm: KeyAlgorithm = 'ECDSA_P256'): Promise<IdentityRequest> {
  const [server, client] = await Promise.all([csrAndKey(algorithm), csrAndKey(algorithm)]);
  return {
    csrs: { serverCsr: server.csr, clientCsr: client.csr },
    serverKey: server.key,
    clientKey: client.key,
    serverPublicKey: server.publicKey,
    clientPublicKey: client.publicKey,
  };
}
