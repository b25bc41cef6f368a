import type { CertificateAuthorities } from './certificate-authorities.js';
import { BACKDATE_MS, wholeSeconds } from './ca-certificates.js';
import type { CertificateContents } from './certificate-contents.js';
import type { VerifiedCsrKey } from './csr-verification.js';
import { buildCertificate } from './certificate-builder.js';
import { distinguishedName } from '../common/der/distinguished-name.js';
import { pemEncode } from '../common/der/pem.js';
import { basicConstraints, EXTENDED_KEY_USAGE, extendedKeyUsage, KEY_USAGE, keyIdentifier, keyUsage, subjectAltName, subjectKeyIdentifier } from '../common/der/x509-extensions.js';
import type { IdentityBundle } from '../site-api/identity-bundle.js';
import { workloadIdentityExtension } from './identity-extension.js';
import { randomSerialNumber } from './serial-number.js';
import { metav1Time } from '../apimachinery/meta-time.js';

const END_ENTITY = basicConstraints(false);
const SERVER_AUTH = extendedKeyUsage([EXTENDED_KEY_USAGE.serverAuth]);
const CLIENT_AUTH = extendedKeyUsage([EXTENDED_KEY_USAGE.clientAuth]);
const SIGNING_ONLY = keyUsage([KEY_USAGE.digitalSignature]);
const SIGNING_AND_KEY_TRANSPORT = keyUsage([KEY_USAGE.digitalSignature, KEY_USAGE.keyEncipherment]);

export interface LeafRequest {
  readonly tenant: string;
  readonly contents: CertificateContents;
  readonly serverKey: VerifiedCsrKey;
  readonly clientKey: VerifiedCsrKey;
  readonly now: Date;
  readonly lifetimeMs: number;
}


/**
 * Signs a pod's server and client certificates under its tenant's CA: the same subject, SANs,
 * workload identity and validity (now − 5 min to now + lifetime, never past the CA); the
 * server one with EKU serverAuth (and keyEncipherment for an RSA key), the client one with
 * clientAuth. Both signatures run on the thread pool at once.
 */
export async function issueLeafCertificates(authorities: CertificateAuthorities, request: LeafRequest, random?: (bytes: number) => Buffer): Promise<IdentityBundle> {
  const ca = await authorities.tenantCa(request.tenant);
  const { contents, now } = request;
  const notBefore = wholeSeconds(now.getTime() - BACKDATE_MS);
  const notAfter = wholeSeconds(Math.min(now.getTime() + request.lifetimeMs, ca.notAfter.getTime()));
  const subject = distinguishedName(contents.subject);
  const shared = [END_ENTITY, subjectAltName({ dns: contents.dnsNames, uris: [contents.uri] }), workloadIdentityExtension(contents.identity), ca.authorityKeyIdentifier];
  const leaf = (key: VerifiedCsrKey, usage: Buffer, eku: Buffer): Promise<Buffer> =>
    buildCertificate(
      {
        serial: randomSerialNumber(random),
        issuer: ca.subject,
        subject,
        notBefore,
        notAfter,
        subjectPublicKeyInfo: key.subjectPublicKeyInfo,
        extensions: [...shared, usage, eku, subjectKeyIdentifier(keyIdentifier(key.subjectPublicKeyInfo))],
      },
      ca.signer,
    );
  const [server, client] = await Promise.all([
    leaf(request.serverKey, request.serverKey.keyType === 'rsa' ? SIGNING_AND_KEY_TRANSPORT : SIGNING_ONLY, SERVER_AUTH),
    leaf(request.clientKey, SIGNING_ONLY, CLIENT_AUTH),
  ]);
  return {
    serverCertificate: pemEncode(server, 'CERTIFICATE'),
    clientCertificate: pemEncode(client, 'CERTIFICATE'),
    chain: ca.intermediatePem,
    serverCa: ca.anchorPem,
    clientCa: ca.anchorPem,
    notBefore: metav1Time(notBefore),
    notAfter: metav1Time(notAfter),
  };
}
