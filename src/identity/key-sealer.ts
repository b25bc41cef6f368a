import { randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from './key-encryption-key.js';
import { openBytes, sealBytes, type SealedKey } from './sealed-key.js';

/** Sealing of other services' secret keys (the blindfold key ring's) under the identity KEK. */
export interface KeySealer {
  /** `plaintext` sealed with AES-256-GCM under the KEK, `aad` (the record's store key) bound in: a JSON string. */
  seal(plaintext: Buffer, aad: string): string;
  /** Opens what {@link seal} made with the same `aad`; throws when altered, moved or sealed under another KEK. */
  open(sealed: string, aad: string): Buffer;
}

/** The KEK as a {@link KeySealer}: the same sealed format as the identity's own keys. */
export function kekSealer(kek: KeyEncryptionKey, random: (bytes: number) => Buffer = randomBytes): KeySealer {
  return {
    seal: (plaintext, aad) => JSON.stringify(sealBytes(kek, aad, plaintext, random)),
    open: (sealed, aad) => {
      let parsed: SealedKey;
      try {
        parsed = JSON.parse(sealed) as SealedKey;
      } catch {
        throw new Error(`the sealed key of ${aad} is not JSON`);
      }
      return openBytes(kek, aad, parsed);
    },
  };
}
