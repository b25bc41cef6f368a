import { DEFAULT_TOKEN_TTL_SECONDS, MAX_TOKEN_TTL_SECONDS } from './bootstrap-tokens.js';
import { IdentityError } from './identity-error.js';

/** An issuance or renewal body: `{"serverCsr", "clientCsr"}` (PEM PKCS#10). */
export interface CsrPair {
  readonly serverCsr: string;
  readonly clientCsr: string;
}

/** `POST /api/identity/v1/tokens`: `{"namespace", "vk8s", "pod", "ttl_seconds"?}`. */
export interface AdminTokenRequest {
  readonly namespace: string;
  readonly vk8s: string;
  readonly pod: string;
  readonly ttlSeconds: number;
}

/** `POST /api/sites/v1/pods/identity-token`: `{"tenant", "namespace", "vk8s", "pod", "uid"}`. */
export interface SiteTokenRequest {
  readonly tenant: string;
  readonly namespace: string;
  readonly vk8s: string;
  readonly pod: string;
  readonly uid: string;
}

const MAX_FIELD = 253;

function fieldsOf(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new IdentityError('BadRequest', 'the request body must be a JSON object');
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!allowed.includes(key)) throw new IdentityError('BadRequest', `${key}: unknown field (fields: ${allowed.join(', ')})`);
  return record;
}

function requiredString(record: Record<string, unknown>, field: string, maxLength = MAX_FIELD): string {
  const value = record[field];
  if (typeof value !== 'string' || value === '') throw new IdentityError('BadRequest', `${field}: Required value: a non-empty string`);
  if (value.length > maxLength) throw new IdentityError('BadRequest', `${field}: must be at most ${maxLength} characters`);
  return value;
}

/** Names become store keys and certificate fields: printable ASCII without spaces or slashes. */
function name(record: Record<string, unknown>, field: string): string {
  const value = requiredString(record, field);
  if (!/^[A-Za-z0-9][A-Za-z0-9.-]*$/.test(value)) throw new IdentityError('BadRequest', `${field}: Invalid value: ${JSON.stringify(value)}: not a Kubernetes name`);
  return value;
}

export function parseCsrPair(body: unknown): CsrPair {
  const record = fieldsOf(body, ['serverCsr', 'clientCsr']);
  return { serverCsr: requiredString(record, 'serverCsr', 32 * 1024), clientCsr: requiredString(record, 'clientCsr', 32 * 1024) };
}

export function parseAdminTokenRequest(body: unknown): AdminTokenRequest {
  const record = fieldsOf(body, ['namespace', 'vk8s', 'pod', 'ttl_seconds']);
  const ttl = record['ttl_seconds'] ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TOKEN_TTL_SECONDS) {
    throw new IdentityError('BadRequest', `ttl_seconds: Invalid value: ${JSON.stringify(ttl)}: must be a whole number from 1 to ${MAX_TOKEN_TTL_SECONDS}`);
  }
  return { namespace: name(record, 'namespace'), vk8s: name(record, 'vk8s'), pod: name(record, 'pod'), ttlSeconds: ttl };
}

export function parseSiteTokenRequest(body: unknown): SiteTokenRequest {
  const record = fieldsOf(body, ['tenant', 'namespace', 'vk8s', 'pod', 'uid']);
  return { tenant: name(record, 'tenant'), namespace: name(record, 'namespace'), vk8s: name(record, 'vk8s'), pod: name(record, 'pod'), uid: requiredString(record, 'uid') };
}
