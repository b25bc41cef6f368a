import type { Signer } from './signer.js';
import { bitString, explicit, sequence, smallInteger, time, unsignedInteger } from '../common/der/der-writer.js';

/** Everything a v3 certificate says, already DER-encoded where it is a structure. */
export interface CertificateFields {
  /** Big-endian magnitude of the (positive) serial number. */
  readonly serial: Uint8Array;
  readonly issuer: Buffer;
  readonly subject: Buffer;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly subjectPublicKeyInfo: Buffer;
  /** Each a DER `Extension`. */
  readonly extensions: readonly Buffer[];
}

const VERSION_3 = explicit(0, smallInteger(2));

/** The DER TBSCertificate of `fields`, to be signed with `signatureAlgorithm`. */
function tbsCertificate(fields: CertificateFields, signatureAlgorithm: Buffer): Buffer {
  return sequence(
    VERSION_3,
    unsignedInteger(fields.serial),
    signatureAlgorithm,
    fields.issuer,
    sequence(time(fields.notBefore), time(fields.notAfter)),
    fields.subject,
    fields.subjectPublicKeyInfo,
    explicit(3, sequence(...fields.extensions)),
  );
}

/** A signed X.509 v3 certificate (DER). */
export async function buildCertificate(fields: CertificateFields, signer: Signer): Promise<Buffer> {
  const tbs = tbsCertificate(fields, signer.algorithmIdentifier);
  const signature = await signer.sign(tbs);
  return sequence(tbs, signer.algorithmIdentifier, bitString(signature));
}
