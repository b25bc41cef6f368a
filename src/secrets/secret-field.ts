import type { BlindfoldUnsealer } from './blindfold-unsealer.js';
import type { PodIdentity } from './ports.js';
import { SecretError } from './secret-error.js';

export interface ResolvedSecret {
  readonly value: Buffer;
  /** How long the value may be cached: the blindfold policy's timeout; 0 for clear secrets. */
  readonly cacheTimeoutSeconds: number;
}

/** Decodes `string:///<base64>` strictly; undefined when it is not one. */
export function decodeStringUrl(url: string): Buffer | undefined {
  const match = /^string:\/\/\/([A-Za-z0-9+/]*={0,2})$/.exec(url);
  if (match === null) return undefined;
  const bytes = Buffer.from(match[1] ?? '', 'base64');
  return bytes.toString('base64') === match[1] ? bytes : undefined;
}

/**
 * Resolves a secret field of a configuration object (`secretInfoSchema`: one of
 * `blindfold_secret_info {location}` or `clear_secret_info {url}`) for a pod: a blindfold
 * secret is unsealed under its policy for that pod (the policy decides, as for any unseal),
 * a clear one is decoded. `what` names the field in errors (never its value).
 */
export async function resolveSecretField(field: unknown, caller: PodIdentity, unsealer: BlindfoldUnsealer, what: string): Promise<ResolvedSecret> {
  const info = (field ?? {}) as { blindfold_secret_info?: { location?: unknown; store_provider?: unknown } | null; clear_secret_info?: { url?: unknown; provider?: unknown } | null };
  const blindfold = info.blindfold_secret_info;
  if (blindfold !== undefined && blindfold !== null) {
    if (typeof blindfold.store_provider === 'string' && blindfold.store_provider !== '') {
      throw new SecretError('InvalidArgument', `${what}: blindfold secrets kept in a store provider are not supported; put the location in the object`);
    }
    const result = await unsealer.unseal(caller, typeof blindfold.location === 'string' ? blindfold.location : '');
    return { value: result.plaintext, cacheTimeoutSeconds: result.cacheTimeoutSeconds };
  }
  const clear = info.clear_secret_info;
  if (clear !== undefined && clear !== null) {
    if (typeof clear.provider === 'string' && clear.provider !== '') throw new SecretError('InvalidArgument', `${what}: clear secrets from a provider are not supported; use url string:///<base64>`);
    const value = typeof clear.url === 'string' ? decodeStringUrl(clear.url) : undefined;
    if (value === undefined) throw new SecretError('InvalidArgument', `${what}: clear_secret_info.url is not string:///<base64>`);
    return { value, cacheTimeoutSeconds: 0 };
  }
  throw new SecretError('InvalidArgument', `${what}: neither blindfold_secret_info nor clear_secret_info is set`);
}
