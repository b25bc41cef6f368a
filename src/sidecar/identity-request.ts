import { webcrypto } from 'node:crypto';
import { type CryptoKeyPair, EC_P256, privateKeyToPem, SIGN_ECDSA_SHA256, x509 } from '../identity/x509.js';
import type { IdentityCsrs } from './identity-bundle.js';

/** The key algorithms the sidecar can make its key pairs with (the identity service signs both). */
export const KEY_ALGORITHMS = ['ECDSA_P256', 'RSA_2048'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

const RSA_2048 = { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };

/** The identity service ignores everything in a CSR but its public key; the subject only names the requester. */
const CSR_SUBJECT = 'CN=edgeplane-sidecar';

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

function generateKeyPair(algorithm: KeyAlgorithm): Promise<CryptoKeyPair> {
  const params = algorithm === 'ECDSA_P256' ? EC_P256 : RSA_2048;
  return webcrypto.subtle.generateKey(params, true, ['sign', 'verify']);
}

async function csrAndKey(algorithm: KeyAlgorithm): Promise<{ csr: string; key: string; publicKey: Uint8Array }> {
  const keys = await generateKeyPair(algorithm);
  const signingAlgorithm = algorithm === 'ECDSA_P256' ? SIGN_ECDSA_SHA256 : RSA_2048;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: CSR_SUBJECT, keys, signingAlgorithm });
  const publicKey = new Uint8Array(await webcrypto.subtle.exportKey('spki', keys.publicKey));
  return { csr: csr.toString('pem') + '\n', key: await privateKeyToPem(keys.privateKey), publicKey };
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
