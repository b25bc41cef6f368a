import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { child, children, DerError, readOid, readTop } from './der/der-reader.js';
import { TAG } from './der/der-writer.js';
import { pemDecodeAll } from './der/pem.js';
import { IdentityError } from './identity-error.js';

/** A CSR's public key once its signature (the requester's proof of possession) verified. */
export interface VerifiedCsrKey {
  /** DER SubjectPublicKeyInfo, re-encoded from the parsed key. */
  readonly subjectPublicKeyInfo: Buffer;
  readonly keyType: 'ec' | 'rsa';
}

/** Signature algorithms accepted on CSRs, by OID: the hash node:crypto verifies with. */
const SIGNATURE_HASH: Readonly<Record<string, string>> = {
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
};
const ACCEPTED_CURVES: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384' };
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 8192;
export const ACCEPTED_KEYS = 'EC P-256, EC P-384 or RSA of 2048 to 8192 bits';

/** Pure-ish: which key a SubjectPublicKeyInfo holds, or why it is not accepted. */
function acceptedKey(key: KeyObject, field: string): 'ec' | 'rsa' {
  const type = key.asymmetricKeyType;
  const details = key.asymmetricKeyDetails ?? {};
  if (type === 'ec') {
    if (details.namedCurve !== undefined && ACCEPTED_CURVES[details.namedCurve] !== undefined) return 'ec';
    throw new IdentityError('UnsupportedKey', `${field}: EC curve ${details.namedCurve ?? '(explicit parameters)'} is not accepted; use ${ACCEPTED_KEYS}`);
  }
  if (type === 'rsa') {
    const bits = details.modulusLength ?? 0;
    if (bits >= MIN_RSA_BITS && bits <= MAX_RSA_BITS) return 'rsa';
    throw new IdentityError('UnsupportedKey', `${field}: an RSA key of ${bits} bits is not accepted; use ${ACCEPTED_KEYS}`);
  }
  throw new IdentityError('UnsupportedKey', `${field}: ${type === undefined ? 'this' : `an ${type}`} key is not accepted; use ${ACCEPTED_KEYS}`);
}

/**
 * Parses a PEM PKCS#10 request and verifies its signature with its own public key (proof
 * that the requester holds the private key). Only the public key is used from it: subject,
 * attributes and requested extensions are ignored. Throws IdentityError `InvalidCsr` or
 * `UnsupportedKey` naming `field`.
 */
export async function verifyCsr(pem: string, field: string): Promise<VerifiedCsrKey> {
  const blocks = pemDecodeAll(pem, 'CERTIFICATE REQUEST');
  if (blocks.length !== 1) throw new IdentityError('InvalidCsr', `${field}: expected one PEM "CERTIFICATE REQUEST" block, found ${blocks.length}`);
  let info: Buffer, spki: Buffer, hash: string | undefined, signatureOid: string, signature: Buffer;
  try {
    const parts = children(readTop(blocks[0] as Buffer, TAG.sequence, 'the CSR'));
    const requestInfo = child(parts, 0, 'certificationRequestInfo', TAG.sequence);
    info = requestInfo.raw;
    spki = child(children(requestInfo), 2, 'subjectPKInfo', TAG.sequence).raw;
    signatureOid = readOid(child(children(child(parts, 1, 'signatureAlgorithm', TAG.sequence)), 0, 'signatureAlgorithm'));
    hash = SIGNATURE_HASH[signatureOid];
    const bits = child(parts, 2, 'signature', TAG.bitString).content;
    if (bits[0] !== 0) throw new DerError('signature has unused bits');
    signature = bits.subarray(1);
  } catch (error) {
    if (error instanceof DerError) throw new IdentityError('InvalidCsr', `${field}: not a PKCS#10 certificate request: ${error.message}`);
    throw error;
  }
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new IdentityError('UnsupportedKey', `${field}: the public key cannot be read; use ${ACCEPTED_KEYS}`);
  }
  const keyType = acceptedKey(key, field);
  const ecdsa = signatureOid.startsWith('1.2.840.10045.4.3.');
  if (hash === undefined || ecdsa !== (keyType === 'ec')) {
    throw new IdentityError('InvalidCsr', `${field}: signature algorithm ${signatureOid} is not accepted with an ${keyType.toUpperCase()} key (ECDSA or RSA PKCS#1 v1.5 with SHA-256/384/512)`);
  }
  const valid = await new Promise<boolean>((resolve) => {
    verify(hash, info, key, signature, (error, result) => resolve(error === null && result));
  });
  if (!valid) throw new IdentityError('InvalidCsr', `${field}: the signature does not verify with the request's public key`);
  return { subjectPublicKeyInfo: key.export({ type: 'spki', format: 'der' }), keyType };
}
