import { type CertificateParts, certificateParts } from '../common/der/certificate-parts.js';
import { pemDecodeAll, pemEncode } from '../common/der/pem.js';
import type { IdentityBundle } from './identity-bundle.js';
import type { IdentityRequest } from './identity-request.js';
import { type IdentityMaterial, pemBlock } from './identity-material.js';

// Certificates are read with the identity service's small DER reader (key, validity): a few
// microseconds each, where node:crypto's X509Certificate takes over 100 µs and a JavaScript
// ASN.1 library milliseconds, on every sidecar start.

/** The DER and parts of every certificate in `pem`; throws naming `what` when one does not read as a certificate. */
function certificatesIn(pem: string, what: string): Array<{ der: Buffer; parts: CertificateParts }> {
  try {
    return pemDecodeAll(pem, 'CERTIFICATE').map((der) => ({ der, parts: certificateParts(der) }));
  } catch (error) {
    throw new Error(`the identity service's ${what} is not a PEM certificate (${error instanceof Error ? error.message : String(error)})`);
  }
}

function leafOf(pem: string, what: string): { der: Buffer; parts: CertificateParts } {
  const [leaf] = certificatesIn(pem, what);
  if (leaf === undefined) throw new Error(`the identity service's ${what} is not a PEM certificate (no CERTIFICATE block)`);
  return leaf;
}

function bundleOf(pem: string, what: string): void {
  if (certificatesIn(pem, what).length === 0) throw new Error(`the identity service's ${what} holds no certificate`);
}

/**
 * Turns an answer of the identity service into the pod's identity, after checking it fits the
 * request: each leaf certifies the public key of the key pair made for it (so the private keys
 * kept here match), the chain and bundles are certificates, and the leaves are still valid at `now`.
 */
export function acceptIdentityBundle(request: IdentityRequest, bundle: IdentityBundle, now: number): IdentityMaterial {
  const server = leafOf(bundle.serverCertificate, 'serverCertificate');
  const client = leafOf(bundle.clientCertificate, 'clientCertificate');
  if (!server.parts.subjectPublicKeyInfo.equals(request.serverPublicKey)) throw new Error("the identity service's server certificate is not for the server key pair this sidecar sent");
  if (!client.parts.subjectPublicKeyInfo.equals(request.clientPublicKey)) throw new Error("the identity service's client certificate is not for the client key pair this sidecar sent");
  bundleOf(bundle.chain, 'chain');
  bundleOf(bundle.serverCa, 'serverCa');
  bundleOf(bundle.clientCa, 'clientCa');
  const notBefore = Math.max(server.parts.notBefore.getTime(), client.parts.notBefore.getTime());
  const notAfter = Math.min(server.parts.notAfter.getTime(), client.parts.notAfter.getTime());
  if (notAfter <= now) throw new Error(`the identity service issued certificates that expired at ${new Date(notAfter).toISOString()}, before ${new Date(now).toISOString()} (is this clock right?)`);
  return {
    serverKey: request.serverKey,
    serverCertificate: pemEncode(server.der, 'CERTIFICATE'),
    clientKey: request.clientKey,
    clientCertificate: pemEncode(client.der, 'CERTIFICATE'),
    chain: pemBlock(bundle.chain),
    serverCa: pemBlock(bundle.serverCa),
    clientCa: pemBlock(bundle.clientCa),
    validity: { notBefore, notAfter },
  };
}
