import { readFileSync } from 'node:fs';

/** A bootstrap token as the sidecar sees it: the raw JWT to send, and the claims it needs. */
export interface BootstrapToken {
  /** Sent as `Authorization: Bearer <raw>`; never logged. */
  readonly raw: string;
  /** `sha256:<hex>` of the platform API CA, when the token carries `ca_pin`. */
  readonly caPin?: string;
  /** `system:pod:<namespace>:<vk8s>:<pod>` (for logs). */
  readonly subject?: string;
  /** The `exp` claim in epoch ms. */
  readonly expiresAt?: number;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * The claims of a compact JWS (`header.payload.signature`, base64url), unverified: what jose's
 * `decodeJwt` returns, in node's own Buffer (jose is 46 modules a sidecar would load at every
 * pod start for this alone). Throws when the text is not one or its payload is not a JSON object.
 */
function jwtClaims(raw: string): Record<string, unknown> {
  const parts = raw.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw new Error('not a compact JWS');
  const claims: unknown = JSON.parse(Buffer.from(parts[1] as string, 'base64url').toString('utf8'));
  if (claims === null || typeof claims !== 'object' || Array.isArray(claims)) throw new Error('the payload is not a JSON object');
  return claims as Record<string, unknown>;
}

/**
 * Reads the claims of a bootstrap token WITHOUT verifying its signature (the sidecar cannot;
 * only the identity service verifies it). Throws naming what is wrong, never echoing the token.
 */
export function decodeBootstrapToken(text: string): BootstrapToken {
  const raw = text.trim();
  let claims: Record<string, unknown>;
  try {
    claims = jwtClaims(raw);
  } catch {
    throw new Error('the bootstrap token is not a JWT (expected header.payload.signature in base64url)');
  }
  const pin = claims['ca_pin'];
  if (pin !== undefined && (typeof pin !== 'string' || !/^sha256:[0-9a-fA-F]{64}$/.test(pin))) throw new Error('the bootstrap token\'s "ca_pin" is not sha256:<64 hex digits>');
  return {
    raw,
    ...(typeof pin === 'string' ? { caPin: pin.toLowerCase() } : {}),
    ...(typeof claims['sub'] === 'string' ? { subject: claims['sub'] } : {}),
    ...(typeof claims['exp'] === 'number' ? { expiresAt: claims['exp'] * 1000 } : {}),
  };
}

/** Reads and decodes the token file (read again at each attempt: the site may replace the token). */
export function readBootstrapToken(path: string): BootstrapToken {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the bootstrap token file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  return decodeBootstrapToken(text);
}
