import { x509 } from '../identity/x509.js';
import type { IdentityBundle } from './identity-bundle.js';
import type { IdentityRequest } from './identity-request.js';
import { type IdentityMaterial, pemBlock } from './identity-material.js';
import { pemCertificates } from './pem-certificates.js';

function certificateOf(pem: string, what: string): x509.X509Certificate {
  try {
    return new x509.X509Certificate(pem);
  } catch (error) {
    throw new Error(`the identity service's ${what} is not a PEM certificate (${error instanceof Error ? error.message : String(error)})`);
  }
}

function certificatesOf(pem: string, what: string): void {
  let count = 0;
  try {
    count = pemCertificates(pem).length;
  } catch (error) {
    throw new Error(`the identity service's ${what} is not a PEM certificate bundle (${error instanceof Error ? error.message : String(error)})`);
  }
  if (count === 0) throw new Error(`the identity service's ${what} holds no certificate`);
}

function samePublicKey(certificate: x509.X509Certificate, spki: Uint8Array): boolean {
  return Buffer.from(certificate.publicKey.rawData).equals(spki);
}

/**
 * Turns an answer of the identity service into the pod's identity, after checking it fits the
 * request: each leaf certifies the public key of the key pair made for it (so the private keys
 * kept here match), the chain and bundles are certificates, and the leaves are still valid at `now`.
 */
export function acceptIdentityBundle(request: IdentityRequest, bundle: IdentityBundle, now: number): IdentityMaterial {
  const server = certificateOf(bundle.serverCertificate, 'serverCertificate');
  const client = certificateOf(bundle.clientCertificate, 'clientCertificate');
  if (!samePublicKey(server, request.serverPublicKey)) throw new Error("the identity service's server certificate is not for the server key pair this sidecar sent");
  if (!samePublicKey(client, request.clientPublicKey)) throw new Error("the identity service's client certificate is not for the client key pair this sidecar sent");
  certificatesOf(bundle.chain, 'chain');
  certificatesOf(bundle.serverCa, 'serverCa');
  certificatesOf(bundle.clientCa, 'clientCa');
  const notBefore = Math.max(server.notBefore.getTime(), client.notBefore.getTime());
  const notAfter = Math.min(server.notAfter.getTime(), client.notAfter.getTime());
  if (notAfter <= now) throw new Error(`the identity service issued certificates that expired at ${new Date(notAfter).toISOString()}, before ${new Date(now).toISOString()} (is this clock right?)`);
  return {
    serverKey: request.serverKey,
    serverCertificate: pemBlock(server.toString('pem')),
    clientKey: request.clientKey,
    clientCertificate: pemBlock(client.toString('pem')),
    chain: pemBlock(bundle.chain),
    serverCa: pemBlock(bundle.serverCa),
    clientCa: pemBlock(bundle.clientCa),
    validity: { notBefore, notAfter },
  };
}
