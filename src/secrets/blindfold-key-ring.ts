import { importPKCS8 } from 'jose';
import type { webcrypto } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import type { Clock } from '../common/clock.js';
import { isStoreError } from '../store/errors.js';
import type { Store } from '../store/types.js';
import { BLINDFOLD_ALG } from './blindfold-format.js';
import { BLINDFOLD_MODULUS_BITS, type BlindfoldKeyPair, generateBlindfoldKeyPair } from './blindfold-key-pair.js';
import type { KeySealer } from './ports.js';
import { SecretError } from './secret-error.js';

/** Where each tenant's key versions live: one store key per version, never rewritten. */
export const BLINDFOLD_KEYS_PREFIX = '/secrets/blindfold/';

export function blindfoldKeyStoreKey(tenant: string, version: number): string {
  return `${BLINDFOLD_KEYS_PREFIX}${tenant}/${String(version).padStart(10, '0')}`;
}

/** A key version as stored: the private key sealed by the KeySealer with the store key as AAD. */
export interface StoredBlindfoldKey {
  readonly tenant: string;
  readonly version: number;
  readonly algorithm: typeof BLINDFOLD_ALG;
  readonly modulus_length: number;
  readonly public_key_pem: string;
  readonly sealed_private_key: string;
  readonly creation_timestamp: string;
}

export type PublicBlindfoldKey = Omit<StoredBlindfoldKey, 'sealed_private_key'>;

export type PrivateKeyLookup =
  | { readonly found: true; readonly key: webcrypto.CryptoKey }
  /** NoKeys: the tenant has no key at all; NoVersion: it has keys, not this version. */
  | { readonly found: false; readonly reason: 'NoKeys' | 'NoVersion' };

export interface BlindfoldKeyRingOptions {
  readonly store: Store;
  readonly sealer: KeySealer;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Makes key pairs (tests inject pre-made ones). Default: RSA-3072 from node:crypto. */
  readonly generate?: () => Promise<BlindfoldKeyPair>;
}

function publicPart(record: StoredBlindfoldKey): PublicBlindfoldKey {
  const { sealed_private_key: _sealed, ...rest } = record;
  return rest;
}

/**
 * Each tenant's blindfold key pairs, versioned. The first version is made on first need
 * (race-safe: a store create, and on conflict the winner's key is used); rotation adds the
 * next version and every earlier one stays usable for decryption. Key versions are
 * immutable, so what is read once is cached for good; opened private keys are kept as
 * non-extractable CryptoKeys and never leave this object.
 */
export class BlindfoldKeyRing {
  private readonly records = new Map<string, Map<number, StoredBlindfoldKey>>();
  private readonly opened = new Map<string, Promise<webcrypto.CryptoKey>>();
  private readonly firstKeys = new Map<string, Promise<PublicBlindfoldKey>>();
  private readonly generate: () => Promise<BlindfoldKeyPair>;

  constructor(private readonly options: BlindfoldKeyRingOptions) {
    this.generate = options.generate ?? (() => generateBlindfoldKeyPair(BLINDFOLD_MODULUS_BITS));
  }

  /** Reads the tenant's versions from the store into the cache; resolves to them. */
  private async load(tenant: string): Promise<Map<number, StoredBlindfoldKey>> {
    const known = this.records.get(tenant) ?? new Map<number, StoredBlindfoldKey>();
    const page = await this.options.store.list(`${BLINDFOLD_KEYS_PREFIX}${tenant}/`);
    for (const kv of page.items) {
      const record = JSON.parse(kv.value) as StoredBlindfoldKey;
      known.set(record.version, record);
    }
    this.records.set(tenant, known);
    return known;
  }

  private async record(tenant: string, version: number): Promise<StoredBlindfoldKey | undefined> {
    return this.records.get(tenant)?.get(version) ?? (await this.load(tenant)).get(version);
  }

  /** The newest version's public key; the tenant's first key pair is made when it has none. */
  async current(tenant: string): Promise<PublicBlindfoldKey> {
    const versions = await this.load(tenant);
    const newest = Math.max(0, ...versions.keys());
    if (newest > 0) return publicPart(versions.get(newest) as StoredBlindfoldKey);
    let pending = this.firstKeys.get(tenant);
    if (pending === undefined) {
      pending = this.createFirst(tenant).finally(() => this.firstKeys.delete(tenant));
      this.firstKeys.set(tenant, pending);
    }
    return pending;
  }

  private async createFirst(tenant: string): Promise<PublicBlindfoldKey> {
    const pair = await this.generate();
    const created = await this.create(tenant, 1, pair);
    if (created !== undefined) return created;
    // Another server made version 1 first: use its key.
    return publicPart((await this.record(tenant, 1)) as StoredBlindfoldKey);
  }

  /** A given version's public key, or undefined when the tenant has no such version. */
  async version(tenant: string, version: number): Promise<PublicBlindfoldKey | undefined> {
    const record = await this.record(tenant, version);
    return record === undefined ? undefined : publicPart(record);
  }

  /** Adds the next version (version 1 when the tenant has none); earlier versions stay. */
  async rotate(tenant: string): Promise<PublicBlindfoldKey> {
    const pair = await this.generate();
    for (let attempt = 0; attempt < 10; attempt++) {
      const next = Math.max(0, ...(await this.load(tenant)).keys()) + 1;
      const created = await this.create(tenant, next, pair);
      if (created !== undefined) {
        this.options.logger.info({ tenant, keyVersion: next }, 'blindfold key rotated');
        return created;
      }
    }
    throw new SecretError('Unavailable', `could not add a key version for tenant ${tenant}: other rotations kept winning; retry`);
  }

  /** Writes a version unless it exists; undefined when another writer had it first. */
  private async create(tenant: string, version: number, pair: BlindfoldKeyPair): Promise<PublicBlindfoldKey | undefined> {
    const key = blindfoldKeyStoreKey(tenant, version);
    const record: StoredBlindfoldKey = {
      tenant,
      version,
      algorithm: BLINDFOLD_ALG,
      modulus_length: BLINDFOLD_MODULUS_BITS,
      public_key_pem: pair.publicKeyPem,
      sealed_private_key: this.options.sealer.seal(Buffer.from(pair.privateKeyPem, 'utf8'), key),
      creation_timestamp: this.options.clock.rfc3339Nano(),
    };
    try {
      await this.options.store.create(key, JSON.stringify(record));
    } catch (error) {
      if (isStoreError(error, 'KeyExists')) return undefined;
      throw error;
    }
    this.records.set(tenant, (this.records.get(tenant) ?? new Map<number, StoredBlindfoldKey>()).set(version, record));
    return publicPart(record);
  }

  /** The private key of a version, opened once and cached. */
  async privateKey(tenant: string, version: number): Promise<PrivateKeyLookup> {
    const record = await this.record(tenant, version);
    if (record === undefined) return { found: false, reason: (this.records.get(tenant)?.size ?? 0) === 0 ? 'NoKeys' : 'NoVersion' };
    const id = `${tenant}/${version}`;
    let opening = this.opened.get(id);
    if (opening === undefined) {
      opening = this.open(record);
      this.opened.set(id, opening);
      opening.catch(() => this.opened.delete(id));
    }
    return { found: true, key: await opening };
  }

  private async open(record: StoredBlindfoldKey): Promise<webcrypto.CryptoKey> {
    let pem: Buffer | undefined;
    try {
      pem = this.options.sealer.open(record.sealed_private_key, blindfoldKeyStoreKey(record.tenant, record.version));
      return (await importPKCS8(pem.toString('utf8'), BLINDFOLD_ALG));
    } catch {
      this.options.logger.error({ tenant: record.tenant, keyVersion: record.version }, 'blindfold private key could not be opened (sealed under another key-encryption key, or damaged)');
      throw SecretError.unseal('Internal');
    } finally {
      pem?.fill(0);
    }
  }
}
