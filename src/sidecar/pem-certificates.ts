import { x509 } from '../identity/x509.js';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every `CERTIFICATE` block of a PEM text, parsed, in order (throws on a block that does not parse). */
export function pemCertificates(pem: string): x509.X509Certificate[] {
  return (pem.match(CERTIFICATE_BLOCK) ?? []).map((block) => new x509.X509Certificate(block));
}
