import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** A key-encryption key as envelope encryption uses it: 32 bytes, and the id written beside what it wraps. */
export interface WrappingKey {
  readonly id: string;
  readonly key: Buffer;
}

/**
 * Encrypted values begin with this (kube-apiserver's EncryptionConfiguration `aesgcm`
 * provider's prefix); a value without it is a legacy plaintext value and is read as it is.
 */
export const ENCRYPTED_VALUE_PREFIX = 'k8s:enc:aesgcm:v1:';

/** How values are kept at rest: what a store value is made from, and read back as. */
export interface ValueTransformer {
  /** `plaintext` as stored, bound to `context` (the store key): it opens only there. */
  toStorage(plaintext: string, context: string): string;
  /** The plaintext of a stored value read at `context`; a value without the prefix is returned as it is. */
  fromStorage(stored: string, context: string): string;
  /** Whether a stored value is encrypted under the current key (false for plaintext and older keys): re-encryption skips these. */
  isCurrent(stored: string): boolean;
}

/** A stored value that cannot be read: damaged, moved to another key, or under a key this process was not given. */
export class AtRestDecryptionError extends Error {
  override readonly name = 'AtRestDecryptionError';
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const DEK_BYTES = 32;
const WRAPPED_DEK_BYTES = IV_BYTES + DEK_BYTES + TAG_BYTES;

function seal(key: Buffer, plaintext: Buffer, aad: Buffer, iv: Buffer): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

/** Opens `iv | ciphertext | tag`; throws (node's error) when the tag does not verify. */
function open(key: Buffer, sealed: Buffer, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
}

/**
 * Envelope encryption of stored values (kube-apiserver's KMS v2 model with the `aesgcm`
 * provider's AES-256-GCM): every write gets a fresh 32-byte data key; the value is sealed
 * with it, the store key as additional data, and the data key is wrapped by the
 * key-encryption key, whose id is written in the clear so an older key can still open it:
 *
 *     k8s:enc:aesgcm:v1:<kek id>:<base64 of wrapped data key (iv|key|tag, 60 bytes) | iv | ciphertext | tag>
 *
 * Writes use `current`; reads use whichever of `current` and `previous` the value names.
 */
export class EnvelopeEncryption implements ValueTransformer {
  private readonly keys: ReadonlyMap<string, WrappingKey>;
  private readonly currentPrefix: string;

  constructor(
    private readonly options: {
      readonly current: WrappingKey;
      /** Older keys still accepted for reading (a rotation in progress). */
      readonly previous?: readonly WrappingKey[];
      readonly random?: (bytes: number) => Buffer;
    },
  ) {
    for (const key of [options.current, ...(options.previous ?? [])]) {
      if (key.key.length !== DEK_BYTES) throw new Error(`the key-encryption key ${key.id} must be 32 bytes, not ${key.key.length}`);
      if (key.id.includes(':') || key.id === '') throw new Error(`a key-encryption key id must be non-empty and without ":", not "${key.id}"`);
    }
    this.keys = new Map([...(options.previous ?? []), options.current].map((k) => [k.id, k]));
    this.currentPrefix = `${ENCRYPTED_VALUE_PREFIX}${options.current.id}:`;
  }

  /** The id of the key new values are wrapped by. */
  get currentKeyId(): string {
    return this.options.current.id;
  }

  toStorage(plaintext: string, context: string): string {
    const random = this.options.random ?? randomBytes;
    const kek = this.options.current;
    // One draw for the data key and both nonces.
    const fresh = random(DEK_BYTES + 2 * IV_BYTES);
    const dek = fresh.subarray(0, DEK_BYTES);
    try {
      const wrapped = seal(kek.key, dek, wrapAad(kek.id, context), fresh.subarray(DEK_BYTES, DEK_BYTES + IV_BYTES));
      const sealed = seal(dek, Buffer.from(plaintext, 'utf8'), Buffer.from(context, 'utf8'), fresh.subarray(DEK_BYTES + IV_BYTES));
      return this.currentPrefix + Buffer.concat([wrapped, sealed]).toString('base64');
    } finally {
      fresh.fill(0);
    }
  }

  fromStorage(stored: string, context: string): string {
    if (!stored.startsWith(ENCRYPTED_VALUE_PREFIX)) return stored;
    const separator = stored.indexOf(':', ENCRYPTED_VALUE_PREFIX.length);
    if (separator < 0) throw new AtRestDecryptionError(`the stored value of ${context} is damaged: no key id after ${ENCRYPTED_VALUE_PREFIX}`);
    const id = stored.slice(ENCRYPTED_VALUE_PREFIX.length, separator);
    const kek = this.keys.get(id);
    if (kek === undefined) {
      throw new AtRestDecryptionError(
        `the stored value of ${context} is encrypted under key-encryption key ${id}, which this server was not given (it has ${[...this.keys.keys()].join(', ')}): pass that key's file with --previous-kek-file`,
      );
    }
    const payload = Buffer.from(stored.slice(separator + 1), 'base64');
    if (payload.length < WRAPPED_DEK_BYTES + IV_BYTES + TAG_BYTES) throw new AtRestDecryptionError(`the stored value of ${context} is damaged: too short to be encrypted`);
    let dek: Buffer | undefined;
    try {
      dek = open(kek.key, payload.subarray(0, WRAPPED_DEK_BYTES), wrapAad(id, context));
      return open(dek, payload.subarray(WRAPPED_DEK_BYTES), Buffer.from(context, 'utf8')).toString('utf8');
    } catch {
      throw new AtRestDecryptionError(`the stored value of ${context} does not decrypt under key-encryption key ${id}: it was altered, or copied from another key`);
    } finally {
      dek?.fill(0);
    }
  }

  isCurrent(stored: string): boolean {
    return stored.startsWith(this.currentPrefix);
  }
}

/** The data key's wrapping is bound to the key id and the store key as well. */
function wrapAad(kekId: string, context: string): Buffer {
  return Buffer.from(`edgeplane data key\0${kekId}\0${context}`, 'utf8');
}
