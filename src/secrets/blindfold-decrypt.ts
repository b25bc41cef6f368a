import { compactDecrypt } from 'jose';
import type { webcrypto } from 'node:crypto';
import { BLINDFOLD_ALG, BLINDFOLD_ENC, type ParsedBlindfold } from './blindfold-format.js';
import { SecretError } from './secret-error.js';

/**
 * Decrypts a parsed blindfold blob with the tenant's private key of its version. Any failure
 * — a wrong key, a changed header (the GCM additional data), IV, ciphertext or tag — is
 * `Tampered` (jose does not tell a wrong content key from a bad tag, by design).
 */
export async function blindfoldDecrypt(blob: ParsedBlindfold, privateKey: webcrypto.CryptoKey): Promise<Buffer> {
  try {
    const { plaintext } = await compactDecrypt(blob.jwe, privateKey, {
      keyManagementAlgorithms: [BLINDFOLD_ALG],
      contentEncryptionAlgorithms: [BLINDFOLD_ENC],
    });
    return Buffer.from(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength);
  } catch {
    throw SecretError.unseal('Tampered');
  }
}
