import { createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type { Clock } from '../common/clock.js';
import type { Store } from '../store/types.js';
import { generateCaKeyPair } from './identity-key-algorithm.js';
import { TOKEN_SIGNING_KEY, type TokenSigningKeyRecord } from './identity-records.js';
import type { KeyEncryptionKey } from './key-encryption-key.js';
import { readOrCreate } from './read-or-create.js';
import { sealPrivateKey, unsealPrivateKey } from './sealed-key.js';

/** The ES256 key that signs bootstrap tokens, and its `kid`. */
export interface TokenSigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/**
 * The bootstrap tokens' signing key: an EC P-256 key made on first start and kept sealed in
 * the store (so every server signs and verifies with it), named by its JWK thumbprint.
 */
export async function loadTokenSigningKey(options: { readonly store: Store; readonly kek: KeyEncryptionKey; readonly clock: Clock; readonly random?: (bytes: number) => Buffer }): Promise<TokenSigningKey> {
  const { value } = await readOrCreate(options.store, TOKEN_SIGNING_KEY, async () => {
    const key = await generateCaKeyPair('ECDSA_P256');
    const record: TokenSigningKeyRecord = {
      kid: await calculateJwkThumbprint(key.publicKey.export({ format: 'jwk' }), 'sha256'),
      publicKey: key.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      key: sealPrivateKey(options.kek, TOKEN_SIGNING_KEY, key.privateKey, options.random),
      created: options.clock.now().toISOString(),
    };
    return JSON.stringify(record);
  });
  const record = JSON.parse(value) as TokenSigningKeyRecord;
  return { kid: record.kid, privateKey: unsealPrivateKey(options.kek, TOKEN_SIGNING_KEY, record.key), publicKey: createPublicKey(record.publicKey) };
}
