import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../observability/logger.js';
import type { Clock } from '../../common/clock.js';
import { openStore } from '../../store/open-store.js';
import type { Store } from '../../store/types.js';
import { CertificateAuthorities } from '../certificate-authorities.js';
import type { IdentityKeyAlgorithm } from '../identity-key-algorithm.js';
import { type KeyEncryptionKey, loadKeyEncryptionKey } from '../key-encryption-key.js';

/** A memory store, a key-encryption key in a temporary home, and the CAs over them (unit tests). */
export interface IdentityFixture {
  readonly home: string;
  readonly store: Store;
  readonly kek: KeyEncryptionKey;
  readonly authorities: CertificateAuthorities;
  close(): Promise<void>;
}

export async function startIdentityFixture(clock: Clock, algorithm: IdentityKeyAlgorithm = 'ECDSA_P256'): Promise<IdentityFixture> {
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-identity-'));
  const store = openStore({ backend: 'memory' });
  const kek = loadKeyEncryptionKey({ home });
  const authorities = await CertificateAuthorities.open({ store, kek, algorithm, clock, logger: createLogger({ level: 'silent' }) });
  return {
    home,
    store,
    kek,
    authorities,
    close: async () => {
      await store.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
