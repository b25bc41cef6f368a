import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../common/atomic-file.js';
import type { WrappingKey } from '../../common/envelope-encryption.js';

const KEY_FILE = 'site.key';
const KEY_BYTES = 32;

/**
 * The site key the agent's persisted state is sealed under: 32 random bytes in `dir` (mode
 * 0600), made once and kept; its id (written beside each sealed value) is a digest of it, so a
 * file sealed under another key says so instead of failing as damaged.
 */
export function loadOrCreateSiteKey(dir: string): WrappingKey {
  const path = join(dir, KEY_FILE);
  let key: Buffer;
  try {
    key = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    key = randomBytes(KEY_BYTES);
    writeFileAtomic(path, key, 0o600);
  }
  if (key.length !== KEY_BYTES) throw new Error(`${path} is not a site key (${key.length} bytes, not ${KEY_BYTES}): remove it and the state sealed under it to start afresh`);
  return { id: `site-${createHash('sha256').update(key).digest('hex').slice(0, 12)}`, key };
}
