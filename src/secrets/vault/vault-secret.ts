import { VaultError } from './vault-error.js';

/** Where a secret is: the API path to GET, and whether the path is a KV v2 data path. */
export interface VaultLocation {
  /** e.g. `/v1/secret/data/app`. */
  readonly apiPath: string;
  /** The second segment is `data` (`<mount>/data/<path>`): KV v2's shape is expected. */
  readonly kvV2Path: boolean;
  /** For KV v2: the same secret's metadata path (to tell a missing version from a missing secret). */
  readonly metadataPath?: string;
}

/**
 * Pure: a unseal request's `location` — the secret's path in Vault, with or without the
 * `/v1/` prefix (`v1/secret/data/app`, `secret/data/app`, `kv/app`).
 */
export function parseVaultLocation(location: string): VaultLocation {
  const trimmed = location.replace(/^\/+/, '').replace(/^v1\//, '').replace(/\/+$/, '');
  const segments = trimmed.split('/');
  if (trimmed === '' || segments.length < 2 || segments.some((s) => s === '' || s === '.' || s === '..') || /[?#\s\\%]/.test(trimmed)) {
    throw new VaultError('InvalidRequest', `location "${location}" is not a Vault secret path such as v1/secret/data/app (KV v2) or v1/kv/app (KV v1)`);
  }
  const kvV2Path = segments[1] === 'data' && segments.length > 2;
  return {
    apiPath: `/v1/${trimmed}`,
    kvV2Path,
    ...(kvV2Path ? { metadataPath: `/v1/${[segments[0], 'metadata', ...segments.slice(2)].join('/')}` } : {}),
  };
}

/** Pure: a `version` field — absent, or a positive integer (as text or number). */
export function parseVaultVersion(version: unknown): number | undefined {
  if (version === undefined || version === null || version === '') return undefined;
  const text = typeof version === 'string' || typeof version === 'number' ? String(version) : JSON.stringify(version);
  if (!/^[1-9][0-9]{0,9}$/.test(text)) throw new VaultError('InvalidRequest', `version "${text}" is not a positive integer`);
  return Number(text);
}

export interface ReadSecret {
  /** The secret's key/value data. */
  readonly data: Record<string, unknown>;
  readonly kvVersion: 1 | 2;
  /** KV v2: the version read. */
  readonly version?: number;
}

/**
 * Pure: the secret in a 200 answer to a read. KV v2 answers `{"data": {"data": {…},
 * "metadata": {"version", …}}}` on a `<mount>/data/<path>` path; anything else is KV v1's
 * `{"data": {…}}`. A version asked of a KV v1 secret is an error (KV v1 has none).
 */
export function readSecretFrom(body: unknown, location: VaultLocation, askedVersion: number | undefined): ReadSecret {
  const data = (body as { data?: unknown } | undefined)?.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new VaultError('BadResponse', `Vault answered ${location.apiPath} without a data object`);
  const inner = data as { data?: unknown; metadata?: { version?: unknown } };
  if (location.kvV2Path && typeof inner.metadata === 'object' && inner.metadata !== null && typeof inner.data === 'object' && inner.data !== null && !Array.isArray(inner.data)) {
    return { data: inner.data as Record<string, unknown>, kvVersion: 2, ...(typeof inner.metadata.version === 'number' ? { version: inner.metadata.version } : {}) };
  }
  if (askedVersion !== undefined) throw new VaultError('InvalidRequest', `version ${askedVersion} was asked, but ${location.apiPath} is a KV v1 secret, which has no versions`);
  return { data: data as Record<string, unknown>, kvVersion: 1 };
}

/**
 * Pure: the bytes a request asks for — the whole secret as JSON, or one key's value (a
 * string as its UTF-8 bytes, anything else as JSON).
 */
export function secretBytes(secret: ReadSecret, key: string | undefined, location: string): Buffer {
  if (key === undefined || key === '') return Buffer.from(JSON.stringify(secret.data), 'utf8');
  if (!Object.prototype.hasOwnProperty.call(secret.data, key)) {
    throw new VaultError('KeyNotFound', `key "${key}" does not exist in ${location}${secret.version === undefined ? '' : ` (version ${secret.version})`}`);
  }
  const value = secret.data[key];
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value), 'utf8');
}
