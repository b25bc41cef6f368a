import { child, children, DerError, type DerNode, readTop } from './der-reader.js';
import { TAG } from './der-writer.js';

/** The parts of a certificate the identity service reuses when it signs under it or checks it. */
export interface CertificateParts {
  readonly issuer: Buffer;
  readonly subject: Buffer;
  readonly subjectPublicKeyInfo: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** RFC 5280 Time (UTCTime or GeneralizedTime, `Z`, whole seconds). */
export function readTime(node: DerNode): Date {
  const text = node.content.toString('ascii');
  const match = node.tag === TAG.utcTime ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : node.tag === TAG.generalizedTime ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(text) : null;
  if (match === null) throw new DerError(`unsupported time "${text}"`);
  const [, y = '', mo = '', d = '', h = '', mi = '', s = ''] = match;
  const year = node.tag === TAG.utcTime ? (Number(y) >= 50 ? 1900 : 2000) + Number(y) : Number(y);
  return new Date(Date.UTC(year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
}

/** Reads the issuer, subject, key and validity of a DER certificate. */
export function certificateParts(der: Buffer): CertificateParts {
  const tbs = children(child(children(readTop(der, TAG.sequence, 'Certificate')), 0, 'TBSCertificate', TAG.sequence));
  // With the explicit version first: version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo.
  const at = tbs[0]?.tag === 0xa0 ? 1 : 0;
  const validity = children(child(tbs, at + 3, 'validity', TAG.sequence));
  return {
    issuer: child(tbs, at + 2, 'issuer', TAG.sequence).raw,
    subject: child(tbs, at + 4, 'subject', TAG.sequence).raw,
    subjectPublicKeyInfo: child(tbs, at + 5, 'subjectPublicKeyInfo', TAG.sequence).raw,
    notBefore: readTime(child(validity, 0, 'notBefore')),
    notAfter: readTime(child(validity, 1, 'notAfter')),
  };
}
