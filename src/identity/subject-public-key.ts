import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { child, children, DerError, readOid, readTop } from '../common/der/der-reader.js';
import { TAG } from '../common/der/der-writer.js';
import { IdentityError } from './identity-error.js';

const ACCEPTED_KEYS = 'EC P-256, EC P-384 or RSA of 2048 to 8192 bits';
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 8192;

const EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
/** Accepted named curves: JWK name and the length of an uncompressed point. */
const CURVES: Readonly<Record<string, { readonly crv: string; readonly pointLength: number }>> = {
  '1.2.840.10045.3.1.7': { crv: 'P-256', pointLength: 65 },
  '1.3.132.0.34': { crv: 'P-384', pointLength: 97 },
};
/** Names of keys and curves that are refused, for the error message. */
const REFUSED_NAMES: Readonly<Record<string, string>> = {
  '1.3.132.0.35': 'EC curve P-521',
  '1.3.132.0.10': 'EC curve secp256k1',
  '1.3.101.112': 'an Ed25519 key',
  '1.3.101.113': 'an Ed448 key',
  '1.2.840.10040.4.1': 'a DSA key',
  '1.2.840.113549.1.1.10': 'an RSASSA-PSS key',
};

/** A CSR's public key, imported (the point or modulus checked by OpenSSL) and classified. */
export interface SubjectPublicKey {
  readonly key: KeyObject;
  readonly keyType: 'ec' | 'rsa';
}

const unsupported = (field: string, what: string): IdentityError => new IdentityError('UnsupportedKey', `${field}: ${what} is not accepted; use ${ACCEPTED_KEYS}`);
const unsigned = (bytes: Buffer): Buffer => {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
};
const bitLength = (magnitude: Buffer): number => (magnitude.length === 0 ? 0 : (magnitude.length - 1) * 8 + (32 - Math.clz32(magnitude[0] ?? 0)));

/**
 * Reads a SubjectPublicKeyInfo and imports the key when it is one Edgeplane accepts (EC
 * P-256/P-384, RSA 2048–8192 bits); IdentityError `UnsupportedKey` naming `field` otherwise.
 * Keys are imported as JWK from the parsed point or modulus: OpenSSL 3's SPKI decoder costs
 * about twice as much per key, and issuance imports two keys per request.
 */
export function subjectPublicKey(spki: Buffer, field: string): SubjectPublicKey {
  let jwk: JsonWebKey;
  let keyType: 'ec' | 'rsa';
  try {
    const top = children(readTop(spki, TAG.sequence, 'SubjectPublicKeyInfo'));
    const parts = children(child(top, 0, 'algorithm', TAG.sequence));
    const type = readOid(child(parts, 0, 'algorithm'));
    const key = child(top, 1, 'subjectPublicKey', TAG.bitString).content;
    if (key[0] !== 0) throw new DerError('subjectPublicKey has unused bits');
    if (type === EC_PUBLIC_KEY) {
      const parameters = parts[1];
      if (parameters?.tag !== TAG.oid) throw unsupported(field, 'an EC key with explicit curve parameters');
      const curveOid = readOid(parameters);
      const curve = CURVES[curveOid];
      if (curve === undefined) throw unsupported(field, REFUSED_NAMES[curveOid] ?? `EC curve ${curveOid}`);
      const point = key.subarray(1);
      // Compressed points have no JWK form: OpenSSL's decoder reads them.
      if (point[0] !== 0x04) return { key: importSpki(spki, field), keyType: 'ec' };
      if (point.length !== curve.pointLength) throw new DerError(`an uncompressed ${curve.crv} point has ${curve.pointLength} bytes, not ${point.length}`);
      const half = (curve.pointLength - 1) / 2;
      jwk = { kty: 'EC', crv: curve.crv, x: point.subarray(1, 1 + half).toString('base64url'), y: point.subarray(1 + half).toString('base64url') };
      keyType = 'ec';
    } else if (type === RSA_ENCRYPTION) {
      const [modulus, exponent] = children(readTop(key.subarray(1), TAG.sequence, 'RSAPublicKey'));
      if (modulus?.tag !== TAG.integer || exponent?.tag !== TAG.integer) throw new DerError('RSAPublicKey is not two INTEGERs');
      const n = unsigned(modulus.content);
      const size = bitLength(n);
      if (size < MIN_RSA_BITS || size > MAX_RSA_BITS) throw unsupported(field, `an RSA key of ${size} bits`);
      jwk = { kty: 'RSA', n: n.toString('base64url'), e: unsigned(exponent.content).toString('base64url') };
      keyType = 'rsa';
    } else {
      throw unsupported(field, REFUSED_NAMES[type] ?? `a key of algorithm ${type}`);
    }
  } catch (error) {
    if (error instanceof DerError) throw new IdentityError('UnsupportedKey', `${field}: the public key cannot be read (${error.message}); use ${ACCEPTED_KEYS}`);
    throw error;
  }
  try {
    return { key: createPublicKey({ key: jwk, format: 'jwk' }), keyType };
  } catch {
    throw new IdentityError('UnsupportedKey', `${field}: the public key is not a valid ${keyType === 'ec' ? `${String(jwk.crv)} point` : 'RSA key'}`);
  }
}

function importSpki(spki: Buffer, field: string): KeyObject {
  try {
    return createPublicKey({ key: spki, format: 'der', type: 'spki' });
  } catch {
    throw new IdentityError('UnsupportedKey', `${field}: the public key is not a valid EC point`);
  }
}
