import { type KeyObject, verify } from 'node:crypto';
import { child, children, DerError, readOid, readTop } from '../common/der/der-reader.js';
import { TAG } from '../common/der/der-writer.js';
import { pemDecodeAll } from '../common/der/pem.js';
import { IdentityError } from './identity-error.js';
import { subjectPublicKey } from './subject-public-key.js';

/** A CSR's public key once its signature (the requester's proof of possession) verified. */
export interface VerifiedCsrKey {
  /** DER SubjectPublicKeyInfo, as the request carries it (its key imported and checked). */
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

/** A parsed request whose key is accepted: what its signature check needs. */
interface ParsedCsr {
  readonly info: Buffer;
  readonly spki: Buffer;
  readonly hash: string;
  readonly signature: Buffer;
  readonly key: KeyObject;
  readonly keyType: 'ec' | 'rsa';
}

function parseCsr(pem: string, field: string): ParsedCsr {
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
  const { key, keyType } = subjectPublicKey(spki, field);
  const ecdsa = signatureOid.startsWith('1.2.840.10045.4.3.');
  if (hash === undefined || ecdsa !== (keyType === 'ec')) {
    throw new IdentityError('InvalidCsr', `${field}: signature algorithm ${signatureOid} is not accepted with an ${keyType.toUpperCase()} key (ECDSA or RSA PKCS#1 v1.5 with SHA-256/384/512)`);
  }
  return { info, spki, hash, signature, key, keyType };
}

function verified(csr: ParsedCsr, valid: boolean, field: string): VerifiedCsrKey {
  if (!valid) throw new IdentityError('InvalidCsr', `${field}: the signature does not verify with the request's public key`);
  return { subjectPublicKeyInfo: Buffer.from(csr.spki), keyType: csr.keyType };
}

/**
 * Parses a PEM PKCS#10 request and verifies its signature with its own public key (proof
 * that the requester holds the private key). Only the public key is used from it: subject,
 * attributes and requested extensions are ignored. Throws IdentityError `InvalidCsr` or
 * `UnsupportedKey` naming `field`. The signature is checked on libuv's thread pool.
 */
export async function verifyCsr(pem: string, field: string): Promise<VerifiedCsrKey> {
  const csr = parseCsr(pem, field);
  const valid = await new Promise<boolean>((resolve) => {
    verify(csr.hash, csr.info, csr.key, csr.signature, (error, result) => resolve(error === null && result));
  });
  return verified(csr, valid, field);
}

/** {@link verifyCsr} done synchronously (in a worker thread of the CSR verifier pool). */
export function verifyCsrSync(pem: string, field: string): VerifiedCsrKey {
  const csr = parseCsr(pem, field);
  return verified(csr, verify(csr.hash, csr.info, csr.key, csr.signature), field);
}
