import { EnvelopeEncryption } from '../common/envelope-encryption.js';
import { kekFileIsExposed, type KeyEncryptionKey, loadKeyEncryptionKey, withPreviousKeys } from '../identity/key-encryption-key.js';
import type { Logger } from '../observability/logger.js';

/**
 * The server's key-encryption key (`identityKekFile`, or `<home>/keys/identity.kek`, made on
 * first start), with the keys it replaced, and the envelope encryption of secrets at rest over
 * it (vK8s Secrets, config objects' secret fields): one key for everything sealed in the store.
 * Logged, with a warning when the key file is readable by others.
 */
export function openKeyEncryption(
  options: { readonly home: string; readonly identityKekFile?: string; readonly previousKekFiles?: readonly string[] },
  logger: Logger,
): { readonly kek: KeyEncryptionKey; readonly encryption: EnvelopeEncryption } {
  const current = loadKeyEncryptionKey({ home: options.home, ...(options.identityKekFile === undefined ? {} : { file: options.identityKekFile }) });
  const kek = withPreviousKeys(current, options.previousKekFiles ?? []);
  logger.info({ path: kek.path, created: kek.created, id: kek.id, ...(kek.previous === undefined ? {} : { previous: kek.previous.map((k) => k.id) }) }, 'identity key-encryption key ready');
  if (kekFileIsExposed(kek.path)) logger.warn({ path: kek.path }, 'the identity key-encryption key file is readable by other users than its owner; make it mode 0600');
  return { kek, encryption: new EnvelopeEncryption({ current: kek, previous: kek.previous ?? [] }) };
}
