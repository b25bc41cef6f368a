import { createPrivateKey, type KeyObject, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Store } from '../store/types.js';
import { IdentityError } from './identity-error.js';
import { PLATFORM_CA_KEY, type PlatformCaRecord } from './identity-records.js';
import type { KeyEncryptionKey } from './key-encryption-key.js';
import { createPlatformCa, type PlatformCa, readFolderCa, sameCertificate } from './platform-ca.js';
import { readOrCreate } from './read-or-create.js';
import { sealPrivateKey, unsealPrivateKey } from './sealed-key.js';

export interface SharedPlatformCa {
  readonly ca: PlatformCa;
  /** This start made it, imported the home's own CA into the store, or found it there. */
  readonly origin: 'created' | 'imported' | 'stored';
}

export interface SharedPlatformCaOptions {
  readonly store: Store;
  readonly kek: KeyEncryptionKey;
  /** `$EDGEPLANE_HOME/pki`: where a server made its CA before the CA moved to the store. */
  readonly dir: string;
  readonly now: Date;
  readonly random?: (bytes: number) => Buffer;
}

/**
 * The platform CA every server over one store shares (so a kubeconfig, an agent certificate or
 * a token's CA pin from one server holds on all of them): kept in the store at
 * `/identity/platform-ca` with its key sealed under the key-encryption key, like the identity
 * CAs. On an empty store the CA of this home's `pki/` (`ca.crt` and `ca.key`, made by earlier
 * versions) is imported, or a new one made; created with compare-and-swap, so when servers
 * start together on an empty store one CA wins and the others read it. Throws, for the
 * operator, when the home's own CA is another one than the store's, or when this server's
 * key-encryption key does not open the store's: never a second CA.
 */
export async function loadSharedPlatformCa(options: SharedPlatformCaOptions): Promise<SharedPlatformCa> {
  const { store, kek, now } = options;
  const random = options.random ?? randomBytes;
  const folderCa = readFolderCa(options.dir);
  const { value, created } = await readOrCreate(store, PLATFORM_CA_KEY, async () => {
    const ca = folderCa ?? (await createPlatformCa(now));
    const record: PlatformCaRecord = {
      certificate: ca.certificate,
      key: sealPrivateKey(kek, PLATFORM_CA_KEY, createPrivateKey(ca.key), random),
      origin: folderCa === undefined ? 'generated' : 'imported',
      created: now.toISOString(),
    };
    return JSON.stringify(record);
  });
  const record = JSON.parse(value) as PlatformCaRecord;
  if (folderCa !== undefined && !sameCertificate(folderCa.certificate, record.certificate)) {
    const files = `${join(options.dir, 'ca.crt')} and ${join(options.dir, 'ca.key')}`;
    throw new Error(
      `this home's platform CA (${files}) is not the platform CA of the store (${PLATFORM_CA_KEY}), which every server over the store uses; ` +
        `move those two files away to use the store's CA (credentials signed by this home's CA then stop working), or start this server with the store it was made with`,
    );
  }
  let key: KeyObject;
  try {
    key = unsealPrivateKey(kek, PLATFORM_CA_KEY, record.key);
  } catch (error) {
    if (!(error instanceof IdentityError)) throw error;
    throw new Error(`the platform CA in the store cannot be opened with this server's key-encryption key: ${error.message}. Servers over one store share the platform CA: give every server the same --identity-kek-file`);
  }
  return {
    ca: { certificate: record.certificate, key: key.export({ type: 'pkcs8', format: 'pem' }).toString() },
    origin: !created ? 'stored' : folderCa === undefined ? 'created' : 'imported',
  };
}
