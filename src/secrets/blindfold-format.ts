import { SecretError } from './secret-error.js';

/**
 * The blindfold format (docs/SECRETS.md): `string:///<base64 of a JWE compact serialization>`
 * made with RSA-OAEP-256 (the tenant's public key wraps a random content key) and A256GCM.
 * The protected header names the tenant, the key version and the secret policy; it is the
 * GCM additional authenticated data, so changing any of it makes decryption fail.
 */
export const BLINDFOLD_ALG = 'RSA-OAEP-256';
export const BLINDFOLD_ENC = 'A256GCM';
export const BLINDFOLD_TYP = 'blindfold-v1+jwe';
export const LOCATION_PREFIX = 'string:///';

export interface BlindfoldHeader {
  readonly alg: typeof BLINDFOLD_ALG;
  readonly enc: typeof BLINDFOLD_ENC;
  readonly typ: typeof BLINDFOLD_TYP;
  readonly tenant: string;
  readonly key_version: number;
  /** The secret policy's id (decimal string of a 31-bit number), and where the policy is. */
  readonly policy_id: string;
  readonly policy_namespace: string;
  readonly policy_name: string;
}

export interface ParsedBlindfold {
  /** The JWE compact serialization, checked to be well formed. */
  readonly jwe: string;
  readonly header: BlindfoldHeader;
}

const HEADER_MEMBERS = new Set(['alg', 'enc', 'typ', 'tenant', 'key_version', 'policy_id', 'policy_namespace', 'policy_name']);

/** Registered JWE algorithms (RFC 7518): a blob naming one of these but not ours uses an unsupported algorithm. */
const JWE_KEY_ALGORITHMS = new Set([
  'RSA1_5', 'RSA-OAEP', 'RSA-OAEP-256', 'RSA-OAEP-384', 'RSA-OAEP-512', 'A128KW', 'A192KW', 'A256KW', 'dir',
  'ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A192KW', 'ECDH-ES+A256KW', 'A128GCMKW', 'A192GCMKW', 'A256GCMKW',
  'PBES2-HS256+A128KW', 'PBES2-HS384+A192KW', 'PBES2-HS512+A256KW',
]);
const JWE_CONTENT_ALGORITHMS = new Set(['A128CBC-HS256', 'A192CBC-HS384', 'A256CBC-HS512', 'A128GCM', 'A192GCM', 'A256GCM']);

/** Wraps a JWE compact serialization as a blindfold location. */
export function wrapLocation(jwe: string): string {
  return LOCATION_PREFIX + Buffer.from(jwe, 'ascii').toString('base64');
}

/** Decodes base64 (or base64url) only when `text` is its canonical encoding: lenient decoders would accept altered padding bits. */
function strictDecode(text: string, alphabet: 'base64' | 'base64url'): Buffer | undefined {
  const pattern = alphabet === 'base64' ? /^[A-Za-z0-9+/]*={0,2}$/ : /^[A-Za-z0-9_-]*$/;
  if (!pattern.test(text)) return undefined;
  const bytes = Buffer.from(text, alphabet);
  return bytes.toString(alphabet) === text ? bytes : undefined;
}

function notBlindfold(): never {
  throw SecretError.unseal('NotBlindfold');
}

/**
 * Pure: the JWE and its header from a location, or a SecretError — NotBlindfold when it is not
 * a well-formed blindfold blob, UnknownAlgorithm when it names JWE algorithms other than ours.
 * Nothing here is authenticated yet: only decryption proves the header genuine.
 */
export function parseBlindfold(location: string): ParsedBlindfold {
  if (!location.startsWith(LOCATION_PREFIX)) notBlindfold();
  const outer = strictDecode(location.slice(LOCATION_PREFIX.length), 'base64');
  if (outer === undefined || outer.length === 0) notBlindfold();
  const jwe = outer.toString('latin1');
  const parts = jwe.split('.');
  if (parts.length !== 5) notBlindfold();
  const decoded = parts.map((p) => strictDecode(p, 'base64url'));
  // Header, wrapped key, IV, ciphertext and tag: only the ciphertext may be empty.
  if (decoded.some((d, i) => d === undefined || (d.length === 0 && i !== 3))) notBlindfold();
  let raw: unknown;
  try {
    raw = JSON.parse((decoded[0] as Buffer).toString('utf8'));
  } catch {
    notBlindfold();
  }
  return { jwe, header: checkHeader(raw) };
}

function checkHeader(raw: unknown): BlindfoldHeader {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) notBlindfold();
  const h = raw as Record<string, unknown>;
  if (h['typ'] !== BLINDFOLD_TYP || Object.keys(h).some((k) => !HEADER_MEMBERS.has(k))) notBlindfold();
  if (h['alg'] !== BLINDFOLD_ALG || h['enc'] !== BLINDFOLD_ENC) {
    const known = JWE_KEY_ALGORITHMS.has(String(h['alg'])) && JWE_CONTENT_ALGORITHMS.has(String(h['enc']));
    if (known) throw SecretError.unseal('UnknownAlgorithm');
    notBlindfold();
  }
  const { tenant, key_version: version, policy_id: policyId, policy_namespace: namespace, policy_name: name } = h;
  const names = [tenant, namespace, name];
  if (names.some((n) => typeof n !== 'string' || !/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(n))) notBlindfold();
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) notBlindfold();
  if (typeof policyId !== 'string' || !/^[1-9][0-9]{0,9}$/.test(policyId) || Number(policyId) > 0x7fffffff) notBlindfold();
  return h as unknown as BlindfoldHeader;
}
