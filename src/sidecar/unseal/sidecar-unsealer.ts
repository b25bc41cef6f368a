import { decodeSecret, type EncodingType } from '../../secrets/encoding-type.js';
import type { IdentityMaterial } from '../identity-material.js';
import type { PlatformSecrets } from './platform-secrets.js';
import type { SecretCache } from './secret-cache.js';
import type { UnsealRequest } from './unseal-request.js';
import type { VaultProviders } from './vault-providers.js';

/** Where an answer came from: the cache, the control plane (kept or not), or Vault. */
export type UnsealSource = 'cache' | 'control-plane' | 'control-plane-uncached' | 'vault';

export interface Unsealed {
  /** The secret's original bytes (after `encoding_type`): the caller's own copy, to zero when done. */
  readonly bytes: Buffer;
  readonly source: UnsealSource;
}

export interface SidecarUnsealerOptions {
  readonly secrets: PlatformSecrets;
  readonly cache: SecretCache;
  readonly vault: VaultProviders;
}

/** What the control plane answered for a location: the sealed plaintext (before `encoding_type`). */
interface Opened {
  readonly plaintext: Buffer;
  readonly source: UnsealSource;
}

/** One call to the control plane for a location, and the requests waiting for it. */
interface Flight {
  readonly opened: Promise<Opened>;
  waiters: number;
}

/** Pure: a new buffer of the secret's original bytes (`encoding_type` applied to the sealed plaintext). */
function originalBytes(plaintext: Buffer, encoding: EncodingType): Buffer {
  return encoding === 'EncodingNone' ? Buffer.from(plaintext) : decodeSecret(plaintext, encoding);
}

/** Pure: the Base64 answer for a sealed plaintext asked with `encoding`; a decoded copy is zeroed once encoded. */
function base64Answer(plaintext: Buffer, encoding: EncodingType): string {
  if (encoding === 'EncodingNone') return plaintext.toString('base64');
  const bytes = decodeSecret(plaintext, encoding);
  try {
    return bytes.toString('base64');
  } finally {
    bytes.fill(0);
  }
}

/**
 * The sidecar's side of an unseal: blindfold requests are answered from the cache while their
 * policy's `decrypt_cache_timeout` runs, else by the control plane (concurrent requests for
 * the same location share one call) and then cached for that timeout; vault requests go
 * through the provider's Vault session. The cache holds what a location opens to — the
 * plaintext as sealed — under the location itself, and `encoding_type` is applied per request:
 * one entry and one control-plane call per blob whatever encodings it is asked with, and the
 * hit path builds no key (a key of location and encoding was a copy of the blob per request).
 * Errors are thrown as they come (SecretError, VaultError, EncodingError, UnsealError); the
 * endpoint maps them.
 */
export class SidecarUnsealer {
  private readonly inFlight = new Map<string, Flight>();

  constructor(private readonly options: SidecarUnsealerOptions) {}

  /**
   * The answer of a blindfold request the cache holds — the Base64 of the secret's bytes —
   * or undefined (a vault request, a miss, an expired entry). Synchronous and without a copy of
   * the secret: the cache-hit path of `POST /secret/unseal`. Throws EncodingError when the
   * cached plaintext is not what `encoding_type` says.
   */
  cachedBase64(request: UnsealRequest): string | undefined {
    if (request.type !== 'blindfold') return undefined;
    return this.options.cache.read(request.location, (plaintext) => base64Answer(plaintext, request.encoding));
  }

  async unseal(request: UnsealRequest, identity: IdentityMaterial): Promise<Unsealed> {
    if (request.type === 'vault') return { bytes: originalBytes(await this.options.vault.read(request, identity), request.encoding), source: 'vault' };
    const cached = this.options.cache.read(request.location, (plaintext) => originalBytes(plaintext, request.encoding));
    if (cached !== undefined) return { bytes: cached, source: 'cache' };
    let flight = this.inFlight.get(request.location);
    if (flight === undefined) {
      const opening: Flight = { opened: this.fromControlPlane(request.location, identity).finally(() => this.inFlight.delete(request.location)), waiters: 0 };
      this.inFlight.set(request.location, opening);
      flight = opening;
    }
    flight.waiters++;
    let opened: Opened | undefined;
    try {
      opened = await flight.opened;
      return { bytes: originalBytes(opened.plaintext, request.encoding), source: opened.source };
    } finally {
      // The control plane's answer is shared by the call's waiters: the last one zeroes it (the cache keeps its own copy).
      if (--flight.waiters === 0) opened?.plaintext.fill(0);
    }
  }

  /** Drops the cache and closes the connections to the control plane and Vault. */
  close(): void {
    this.options.cache.clear();
    this.options.vault.close();
    this.options.secrets.close();
  }

  private async fromControlPlane(location: string, identity: IdentityMaterial): Promise<Opened> {
    const answer = await this.options.secrets.unseal(location, identity);
    if (answer.cacheTimeoutSeconds <= 0) return { plaintext: answer.plaintext, source: 'control-plane-uncached' };
    this.options.cache.set(location, answer.plaintext, answer.cacheTimeoutSeconds * 1000);
    return { plaintext: answer.plaintext, source: 'control-plane' };
  }
}
