import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The key that seals the identity service's private keys in the store (AES-256-GCM). */
export interface KeyEncryptionKey {
  readonly key: Buffer;
  /** A fingerprint that names the key without revealing it (recorded beside each sealed key). */
  readonly id: string;
  readonly path: string;
  /** Whether this start made the key file. */
  readonly created: boolean;
  /**
   * Keys this one replaced (`--previous-kek-file`), still used to open what they sealed while
   * `edgeplane store re-encrypt` moves it under this one; never used to seal.
   */
  readonly previous?: readonly KeyEncryptionKey[];
}

const KEK_BYTES = 32;

/** `$EDGEPLANE_HOME/keys/identity.kek`. */
export function defaultKekPath(home: string): string {
  return join(home, 'keys', 'identity.kek');
}

function kekId(key: Buffer): string {
  return createHash('sha256').update('edgeplane identity key-encryption key\0').update(key).digest('hex').slice(0, 16);
}

/** 32 raw bytes, or the same as 64 hex digits or base64 (a trailing newline allowed), so `openssl rand` output works either way. */
function parseKekFile(contents: Buffer, path: string): Buffer {
  if (contents.length === KEK_BYTES) return contents;
  const text = contents.toString('latin1').trim();
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return Buffer.from(text, 'base64');
  throw new Error(`the identity key-encryption key ${path} must hold 32 bytes (raw, 64 hex digits or base64), not ${contents.length} bytes`);
}

/**
 * The key-encryption key: an operator's file (`--identity-kek-file`; must exist), or
 * `<home>/keys/identity.kek`, made on first start from 32 random bytes with mode 0600 in a
 * 0700 folder. The file appears complete or not at all, and when two servers sharing a home
 * start together one key wins (hard link of a written temporary file; the loser reads it).
 */
export function loadKeyEncryptionKey(options: { readonly home: string; readonly file?: string; readonly random?: (bytes: number) => Buffer }): KeyEncryptionKey {
  if (options.file !== undefined) {
    if (!existsSync(options.file)) throw new Error(`the identity key-encryption key file ${options.file} does not exist`);
    const key = parseKekFile(readFileSync(options.file), options.file);
    return { key, id: kekId(key), path: options.file, created: false };
  }
  const path = defaultKekPath(options.home);
  let created = false;
  if (!existsSync(path)) created = createKeyFile(path, (options.random ?? randomBytes)(KEK_BYTES));
  const key = parseKekFile(readFileSync(path), path);
  return { key, id: kekId(key), path, created };
}

/**
 * The key-encryption key with the keys it replaced, each an existing file (32 bytes: raw,
 * hex or base64). A previous key equal to the current one is dropped.
 */
export function withPreviousKeys(current: KeyEncryptionKey, previousFiles: readonly string[]): KeyEncryptionKey {
  const previous: KeyEncryptionKey[] = [];
  for (const file of previousFiles) {
    if (!existsSync(file)) throw new Error(`the previous key-encryption key file ${file} does not exist`);
    const key = parseKekFile(readFileSync(file), file);
    const id = kekId(key);
    if (id !== current.id && !previous.some((k) => k.id === id)) previous.push({ key, id, path: file, created: false });
  }
  return previous.length === 0 ? current : { ...current, previous };
}

/** Whether the key file is readable by others than its owner (operators are warned). */
export function kekFileIsExposed(path: string): boolean {
  return (statSync(path).mode & 0o077) !== 0;
}

function createKeyFile(path: string, key: Buffer): boolean {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'wx', 0o600);
  try {
    writeSync(fd, key);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}
