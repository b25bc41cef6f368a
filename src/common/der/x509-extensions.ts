import { createHash } from 'node:crypto';
import { children, readTop } from './der-reader.js';
import { boolean, implicitPrimitive, octetString, oid, sequence, smallInteger, tlv, TAG } from './der-writer.js';

/** One `Extension` (RFC 5280 4.1): the OID, critical when set, and the DER value wrapped in an OCTET STRING. */
export function extension(dotted: string, critical: boolean, value: Uint8Array): Buffer {
  return critical ? sequence(oid(dotted), boolean(true), octetString(value)) : sequence(oid(dotted), octetString(value));
}

const EXTENSION_OID = {
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
} as const;

export const EXTENDED_KEY_USAGE = { serverAuth: '1.3.6.1.5.5.7.3.1', clientAuth: '1.3.6.1.5.5.7.3.2' } as const;

/** KeyUsage bit numbers (RFC 5280 4.2.1.3). */
export const KEY_USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

/** Critical basicConstraints: a CA (with a path length when given) or an end entity. */
export function basicConstraints(ca: boolean, pathLength?: number): Buffer {
  const value = ca ? sequence(boolean(true), ...(pathLength === undefined ? [] : [smallInteger(pathLength)])) : sequence();
  return extension(EXTENSION_OID.basicConstraints, true, value);
}

/** Critical keyUsage with the given bits, as a DER named-bit BIT STRING (trailing zero bits dropped). */
export function keyUsage(bits: readonly number[]): Buffer {
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] = (bytes[Math.floor(bit / 8)] ?? 0) | (0x80 >> bit % 8);
  const unused = 7 - (highest % 8);
  return extension(EXTENSION_OID.keyUsage, true, tlv(TAG.bitString, Buffer.from([unused]), bytes));
}

export function extendedKeyUsage(oids: readonly string[]): Buffer {
  return extension(EXTENSION_OID.extKeyUsage, false, sequence(...oids.map(oid)));
}

/** subjectAltName with dNSName and uniformResourceIdentifier entries (critical when the subject is empty; never here). */
export function subjectAltName(names: { readonly dns: readonly string[]; readonly uris: readonly string[] }): Buffer {
  const general = [...names.dns.map((n) => implicitPrimitive(2, Buffer.from(n, 'ascii'))), ...names.uris.map((u) => implicitPrimitive(6, Buffer.from(u, 'ascii')))];
  return extension(EXTENSION_OID.subjectAltName, false, sequence(...general));
}

export function subjectKeyIdentifier(keyId: Uint8Array): Buffer {
  return extension(EXTENSION_OID.subjectKeyIdentifier, false, octetString(keyId));
}

export function authorityKeyIdentifier(keyId: Uint8Array): Buffer {
  return extension(EXTENSION_OID.authorityKeyIdentifier, false, sequence(implicitPrimitive(0, keyId)));
}

/** RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING's bits. */
export function keyIdentifier(subjectPublicKeyInfo: Buffer): Buffer {
  const [, key] = children(readTop(subjectPublicKeyInfo, TAG.sequence, 'SubjectPublicKeyInfo'));
  if (key === undefined || key.tag !== TAG.bitString) throw new Error('SubjectPublicKeyInfo has no subjectPublicKey');
  return createHash('sha1').update(key.content.subarray(1)).digest();
}
