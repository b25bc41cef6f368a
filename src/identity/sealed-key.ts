import { createCipheriv, createDecipheriv, createPrivateKey, type KeyObject, randomBytes } from 'node:crypto';
import { IdentityError } from './identity-error.js';
import type { KeyEncryptionKey } from './key-encryption-key.js';

/** A private key as the store keeps it: PKCS#8 DER sealed with AES-256-GCM, the record's store key as AAD. */
export interface SealedKey {
  readonly alg: 'A256GCM';
  /** Which key-encryption key sealed it (its fingerprint). */
  readonly kek: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

/**
 * Seals `privateKey` for the record at `storeKey`: binding the ciphertext to its key means a
 * sealed key copied under another key (another tenant's CA) does not open there.
 */
export function sealPrivateKey(kek: KeyEncryptionKey, storeKey: string, privateKey: KeyObject, random: (bytes: number) => Buffer = randomBytes): SealedKey {
  const plaintext = privateKey.export({ type: 'pkcs8', format: 'der' });
  try {
    return sealBytes(kek, storeKey, plaintext, random);
  } finally {
    plaintext.fill(0);
  }
}

/** Seals any secret bytes under the KEK with `aad` (the record's store key) bound in. */
export function sealBytes(kek: KeyEncryptionKey, aad: string, plaintext: Buffer, random: (bytes: number) => Buffer = randomBytes): SealedKey {
  const iv = random(12);
  const cipher = createCipheriv('aes-256-gcm', kek.key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { alg: 'A256GCM', kek: kek.id, iv: iv.toString('base64url'), ciphertext: ciphertext.toString('base64url'), tag: cipher.getAuthTag().toString('base64url') };
}

/** Opens a sealed key read from `storeKey`; IdentityError `Internal` (the reason is for the operator) when it does not open. */
export function unsealPrivateKey(kek: KeyEncryptionKey, storeKey: string, sealed: SealedKey): KeyObject {
  const plaintext = openBytes(kek, storeKey, sealed);
  try {
    return createPrivateKey({ key: plaintext, format: 'der', type: 'pkcs8' });
  } finally {
    plaintext.fill(0);
  }
}

/** Opens bytes sealed by {@link sealBytes} with the same `aad`; IdentityError `Internal` when they do not open. */
export function openBytes(kek: KeyEncryptionKey, aad: string, sealed: SealedKey): Buffer {
  if (sealed.alg !== 'A256GCM') throw new IdentityError('Internal', `the private key in ${aad} is sealed with ${String(sealed.alg)}, which this server does not know`);
  // The current key, or one it replaced (a rotation in progress).
  const opener = sealed.kek === kek.id ? kek : kek.previous?.find((k) => k.id === sealed.kek);
  if (opener === undefined) {
    const others = kek.previous === undefined ? '' : `, and previous ${kek.previous.map((k) => `${k.id} from ${k.path}`).join(', ')}`;
    throw new IdentityError('Internal', `the private key in ${aad} was sealed under another key-encryption key (${sealed.kek}; this server has ${kek.id} from ${kek.path}${others})`);
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', opener.key, Buffer.from(sealed.iv, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new IdentityError('Internal', `the private key in ${aad} does not unseal: it was altered, or sealed for another record`);
  }
}

/** Whether a JSON value is a {@link SealedKey}. */
function isSealedKey(value: unknown): value is SealedKey {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return v['alg'] === 'A256GCM' && typeof v['kek'] === 'string' && typeof v['iv'] === 'string' && typeof v['ciphertext'] === 'string' && typeof v['tag'] === 'string';
}

/**
 * A record of the identity service or the blindfold key ring (JSON whose sealed keys have the
 * record's store key as AAD: a {@link SealedKey} member, or a string member holding one as
 * JSON) with every sealed key under the current KEK; undefined when all are already. Throws
 * IdentityError when one does not open. The re-encryption pass after a KEK rotation.
 */
export function resealRecord(kek: KeyEncryptionKey, storeKey: string, record: string, random: (bytes: number) => Buffer = randomBytes): string | undefined {
  let changed = false;
  const reseal = (sealed: SealedKey): SealedKey => {
    if (sealed.kek === kek.id) return sealed;
    changed = true;
    const plaintext = openBytes(kek, storeKey, sealed);
    try {
      return sealBytes(kek, storeKey, plaintext, random);
    } finally {
      plaintext.fill(0);
    }
  };
  const walk = (value: unknown): unknown => {
    if (isSealedKey(value)) return reseal(value);
    if (typeof value === 'string' && value.startsWith('{"alg":"A256GCM"')) {
      const inner: unknown = JSON.parse(value);
      return isSealedKey(inner) ? JSON.stringify(reseal(inner)) : value;
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(record);
  } catch {
    return undefined; // not a record of sealed keys
  }
  const next = walk(parsed);
  return changed ? JSON.stringify(next) : undefined;
}
