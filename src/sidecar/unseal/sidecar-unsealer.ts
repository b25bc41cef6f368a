import { decodeSecret } from '../../secrets/encoding-type.js';
import type { IdentityMaterial } from '../identity-material.js';
import { cacheKeyOf } from './cache-key.js';
import type { PlatformSecrets } from './platform-secrets.js';
import type { SecretCache } from './secret-cache.js';
import type { BlindfoldUnsealRequest, UnsealRequest } from './unseal-request.js';
import type { VaultProviders } from './vault-providers.js';

/** Where an answer came from: the cache, the control plane (kept or not), or Vault. */
export type UnsealSource = 'cache' | 'control-plane' | 'control-plane-uncached' | 'vault';

export interface Unsealed {
  /** The secret's original bytes (after `encoding_type`). Shared between concurrent callers: read, do not modify. */
  readonly bytes: Buffer;
  readonly source: UnsealSource;
}

export interface SidecarUnsealerOptions {
  readonly secrets: PlatformSecrets;
  readonly cache: SecretCache;
  readonly vault: VaultProviders;
}

/**
 * The sidecar's side of an unseal: blindfold requests are answered from the cache while their
 * policy's `decrypt_cache_timeout` runs, else by the control plane (concurrent requests for
 * the same key share one call) and then cached for that timeout; vault requests go through
 * the provider's Vault session. `encoding_type` is applied here, to the bytes the secret was
 * sealed or stored as. Errors are thrown as they come (SecretError, VaultError, EncodingError,
 * UnsealError); the endpoint maps them.
 */
export class SidecarUnsealer {
  private readonly inFlight = new Map<string, Promise<Unsealed>>();

  constructor(private readonly options: SidecarUnsealerOptions) {}

  /**
   * The answer of a blindfold request the cache holds — the Base64 of the secret's bytes —
   * or undefined (a vault request, a miss, an expired entry). Synchronous and without a copy of
   * the secret: the cache-hit path of `POST /secret/unseal`.
   */
  cachedBase64(request: UnsealRequest): string | undefined {
    if (request.type !== 'blindfold') return undefined;
    return this.options.cache.read(cacheKeyOf(request), (bytes) => bytes.toString('base64'));
  }

  async unseal(request: UnsealRequest, identity: IdentityMaterial): Promise<Unsealed> {
    if (request.type === 'vault') return { bytes: decodeSecret(await this.options.vault.read(request, identity), request.encoding), source: 'vault' };
    const key = cacheKeyOf(request);
    const cached = this.options.cache.get(key);
    if (cached !== undefined) return { bytes: cached, source: 'cache' };
    let shared = this.inFlight.get(key);
    if (shared === undefined) {
      shared = this.fromControlPlane(request, key, identity).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, shared);
    }
    return shared;
  }

  /** Drops the cache and closes the connections to the control plane and Vault. */
  close(): void {
    this.options.cache.clear();
    this.options.vault.close();
    this.options.secrets.close();
  }

  private async fromControlPlane(request: BlindfoldUnsealRequest, key: string, identity: IdentityMaterial): Promise<Unsealed> {
    const answer = await this.options.secrets.unseal(request.location, identity);
    let bytes: Buffer;
    try {
      bytes = decodeSecret(answer.plaintext, request.encoding);
    } finally {
      if (request.encoding !== 'EncodingNone') answer.plaintext.fill(0);
    }
    if (answer.cacheTimeoutSeconds <= 0) return { bytes, source: 'control-plane-uncached' };
    this.options.cache.set(key, bytes, answer.cacheTimeoutSeconds * 1000);
    return { bytes, source: 'control-plane' };
  }
}
