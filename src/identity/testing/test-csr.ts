import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { distinguishedName } from '../../common/der/distinguished-name.js';
import { bitString, derNull, explicit, oid, sequence, smallInteger } from '../../common/der/der-writer.js';
import { pemEncode } from '../../common/der/pem.js';

export type TestKeyType = { readonly type: 'ec'; readonly curve: 'P-256' | 'P-384' | 'P-521' | 'secp256k1' } | { readonly type: 'rsa'; readonly bits: number } | { readonly type: 'ed25519' };

/** A key pair and a PKCS#10 CSR signed with it, as a sidecar makes them (tests and the benchmark). */
export interface TestCsr {
  readonly pem: string;
  readonly privateKey: KeyObject;
  readonly privateKeyPem: string;
}

const SIGNATURE: Record<TestKeyType['type'], { algorithm: Buffer; hash: string | null }> = {
  ec: { algorithm: sequence(oid('1.2.840.10045.4.3.2')), hash: 'sha256' },
  rsa: { algorithm: sequence(oid('1.2.840.113549.1.1.11'), derNull()), hash: 'sha256' },
  ed25519: { algorithm: sequence(oid('1.3.101.112')), hash: null },
};

function keyPair(key: TestKeyType): { privateKey: KeyObject; publicKey: KeyObject } {
  switch (key.type) {
    case 'ec':
      return generateKeyPairSync('ec', { namedCurve: key.curve });
    case 'rsa':
      return generateKeyPairSync('rsa', { modulusLength: key.bits });
    case 'ed25519':
      return generateKeyPairSync('ed25519');
  }
}

/**
 * A CSR for `CN=<commonName>` (which the service ignores) over a new key of `key`'s type.
 * `tamper` flips a bit of the signature, and `signWith` signs with another key (of the same
 * type) than the one the request carries: either way it no longer proves possession of the key.
 * `editKey` rewrites the SubjectPublicKeyInfo the request carries (compressed points, bad keys).
 */
export function makeTestCsr(key: TestKeyType = { type: 'ec', curve: 'P-256' }, options: { commonName?: string; tamper?: boolean; signWith?: KeyObject; editKey?: (spki: Buffer) => Buffer } = {}): TestCsr {
  const { privateKey, publicKey } = keyPair(key);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const info = sequence(smallInteger(0), distinguishedName([['CN', options.commonName ?? 'ignored']]), options.editKey?.(spki) ?? spki, explicit(0, Buffer.alloc(0)));
  const { algorithm, hash } = SIGNATURE[key.type];
  const signature = sign(hash, info, options.signWith ?? privateKey);
  if (options.tamper === true) signature[signature.length - 1] = (signature[signature.length - 1] ?? 0) ^ 0x01;
  return { pem: pemEncode(sequence(info, algorithm, bitString(signature)), 'CERTIFICATE REQUEST'), privateKey, privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}
