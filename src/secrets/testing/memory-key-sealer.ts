import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeySealer } from '../ports.js';

/**
 * A KeySealer for tests: AES-256-GCM under a random key held in memory, the AAD bound as the
 * identity service's sealer binds it. Production uses the identity service's sealer (its
 * key-encryption key lives in $EDGEPLANE_HOME/keys).
 */
export function memoryKeySealer(key: Buffer = randomBytes(32)): KeySealer & { readonly opened: () => number } {
  let opened = 0;
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(sealed, aad) {
      const bytes = Buffer.from(sealed, 'base64');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, 12)).setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(bytes.subarray(12, 28));
      opened++;
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
    },
    opened: () => opened,
  };
}
