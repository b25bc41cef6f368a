import { type EncodingType, parseEncodingType } from '../../secrets/encoding-type.js';
import { UnsealError } from './unseal-error.js';
import { jsonDepthExceeds } from '../../common/json-depth.js';

/** The seed's unseal request of type `blindfold`. */
interface BlindfoldUnsealRequest {
  readonly type: 'blindfold';
  /** `string:///<base64 of the blob>` (checked by the control plane, which answers the platform's messages). */
  readonly location: string;
  readonly encoding: EncodingType;
}

/** The seed's unseal request of type `vault`. */
export interface VaultUnsealRequest {
  readonly type: 'vault';
  /** Name of the secret_management_access object. */
  readonly provider: string;
  /** Path of the secret in Vault, e.g. `v1/secret/data/app`. */
  readonly location: string;
  readonly key?: string;
  /** Text of a positive integer (checked by the Vault client). */
  readonly version?: string;
  readonly encoding: EncodingType;
}

export type UnsealRequest = BlindfoldUnsealRequest | VaultUnsealRequest;

const UNSEAL_TYPES = ['blindfold', 'vault'] as const;
const FIELDS: Readonly<Record<UnsealRequest['type'], readonly string[]>> = {
  blindfold: ['type', 'location', 'encoding_type'],
  vault: ['type', 'provider', 'location', 'key', 'version', 'encoding_type'],
};

const invalid = (message: string): UnsealError => new UnsealError('InvalidRequest', message);
const MAX_BODY_DEPTH = 16;

/** Absent, null and "" are "not given" (as the seed's optional fields are often sent). */
function given(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

function requiredString(body: Record<string, unknown>, field: string, meaning: string): string {
  const value = body[field];
  if (!given(value)) throw invalid(`${field}: required, ${meaning}`);
  if (typeof value !== 'string') throw invalid(`${field}: must be a string, ${meaning}`);
  return value;
}

function optionalString(body: Record<string, unknown>, field: string, allowNumber = false): string | undefined {
  const value = body[field];
  if (!given(value)) return undefined;
  if (typeof value === 'string') return value;
  if (allowNumber && typeof value === 'number') return String(value);
  throw invalid(`${field}: must be a string${allowNumber ? ' (or a number)' : ''}`);
}

function encodingOf(body: Record<string, unknown>): EncodingType {
  try {
    return parseEncodingType(body['encoding_type']);
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error));
  }
}

/**
 * Pure: the unseal request in a `POST /secret/unseal` body (its bytes, already known to be
 * `application/json`). Fields the request's type does not have are refused by name when they
 * hold a value, so a typo (`encodingType`) is an error rather than silently the default;
 * empty ones (`"key": ""` in a blindfold request, as clients that send every field do) are not.
 */
export function parseUnsealRequest(raw: Buffer | string): UnsealRequest {
  let body: unknown;
  try {
    body = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch {
    throw invalid('the body is not valid JSON; send {"type": "blindfold", "location": "string:///…"} or {"type": "vault", "provider": …, "location": …}');
  }
  // Every field is a scalar; a deeper body is refused before an error message quotes (walks) it.
  if (jsonDepthExceeds(body, MAX_BODY_DEPTH)) throw invalid(`the body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep; its fields are strings`);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('the body must be a JSON object with a "type" of blindfold or vault');
  const fields = body as Record<string, unknown>;
  const type = fields['type'];
  if (!given(type)) throw invalid(`type: required, one of ${UNSEAL_TYPES.join(', ')}`);
  if (type !== 'blindfold' && type !== 'vault') throw invalid(`type: ${JSON.stringify(type)} is not one of ${UNSEAL_TYPES.join(', ')}`);
  const known = FIELDS[type];
  const unknown = Object.keys(fields).filter((f) => !known.includes(f) && given(fields[f]));
  if (unknown.length > 0) throw invalid(`unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((f) => JSON.stringify(f)).join(', ')}: a ${type} request has ${known.join(', ')}`);
  if (type === 'blindfold') {
    return { type, location: requiredString(fields, 'location', 'the blindfold secret as string:///<base64>'), encoding: encodingOf(fields) };
  }
  const key = optionalString(fields, 'key');
  const version = optionalString(fields, 'version', true);
  return {
    type,
    provider: requiredString(fields, 'provider', 'the name of a secret_management_access object'),
    location: requiredString(fields, 'location', 'the path of the secret in Vault, e.g. v1/secret/data/app'),
    ...(key === undefined ? {} : { key }),
    ...(version === undefined ? {} : { version }),
    encoding: encodingOf(fields),
  };
}
