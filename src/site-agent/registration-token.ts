/** What a registration token carries: its identity and secret, the CA pin, and the server. */
export interface RegistrationToken {
  readonly id: string;
  readonly secret: string;
  /** `sha256:<64 lowercase hex>`: the digest of the platform CA certificate's DER. */
  readonly ca: string;
  /** The control plane's base URL (`https://host:port`), without a trailing slash. */
  readonly server: string;
  /** The token as given, sent as `Authorization: Bearer <raw>`. */
  readonly raw: string;
}

const PREFIX = 'ept1.';

/**
 * Parses a registration token `ept1.<base64url JSON {"id","secret","ca","server"}>` as
 * `edgeplane site token` prints it. Throws an Error naming what is wrong (never echoing
 * the secret).
 */
export function parseRegistrationToken(text: string): RegistrationToken {
  const raw = text.trim();
  if (!raw.startsWith(PREFIX)) throw new Error(`the registration token does not start with "${PREFIX}" (print one with \`edgeplane site token\`)`);
  const payload = raw.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(payload)) throw new Error('the registration token is not base64url after "ept1."');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new Error('the registration token does not hold JSON after "ept1."');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the registration token does not hold a JSON object');
  const fields = parsed as Record<string, unknown>;
  const field = (name: string): string => {
    const value = fields[name];
    if (typeof value !== 'string' || value === '') throw new Error(`the registration token has no "${name}"`);
    return value;
  };
  const ca = field('ca').toLowerCase();
  if (!/^sha256:[0-9a-f]{64}$/.test(ca)) throw new Error('the registration token\'s "ca" is not sha256:<64 hex digits>');
  const server = field('server').replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new Error(`the registration token's server "${server}" is not a URL`);
  }
  if (url.protocol !== 'https:') throw new Error(`the registration token's server "${server}" is not an https URL`);
  return { id: field('id'), secret: field('secret'), ca, server, raw };
}
