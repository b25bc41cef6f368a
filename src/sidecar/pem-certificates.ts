import { X509Certificate } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Every `CERTIFICATE` block of a PEM text, parsed, in order (throws on a block that does not
 * parse). Node's own X509Certificate: the sidecar needs no X.509 library of its own.
 */
export function pemCertificates(pem: string): X509Certificate[] {
  return (pem.match(CERTIFICATE_BLOCK) ?? []).map((block) => new X509Certificate(block));
}
