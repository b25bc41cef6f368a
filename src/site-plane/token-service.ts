import { timingSafeEqual } from 'node:crypto';
import { StatusError } from '../apimachinery/errors/status-error.js';
import { authorize } from '../auth/authorize.js';
import { PLATFORM_TENANT, type Principal } from '../auth/principal.js';
import type { Clock } from '../common/clock.js';
import type { Store } from '../store/types.js';
import { formatRegistrationToken, InvalidTokenError, newTokenCredentials, parseRegistrationToken, secretDigest } from '../site-api/registration-token.js';
import { tokenKey, type TokenRecord } from './site-keys.js';
import type { SiteType } from '../site-api/site-model.js';
import { metav1Time } from '../apimachinery/meta-time.js';

const DEFAULT_TOKEN_TTL_SECONDS = 24 * 3600;
const MAX_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
const TOKENS = { resource: 'tokens', group: 'sites.edgeplane.io' };

export interface TokenServiceDependencies {
  readonly store: Store;
  readonly clock: Clock;
  /** `sha256:<hex>` of the platform CA. */
  readonly caPin: string;
  /** The URL sites reach the control plane at. */
  readonly publicUrl: () => string;
  readonly random?: (bytes: number) => Buffer;
}

/** A token request's body, checked: `{"type", "ttl_seconds"?}`. */
export function parseTokenRequest(body: unknown): { type: SiteType; ttlSeconds: number } {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  for (const key of Object.keys(b)) if (key !== 'type' && key !== 'ttl_seconds') throw StatusError.badRequest(`${key}: unknown field`);
  if (b['type'] !== 'CUSTOMER_EDGE' && b['type'] !== 'REGIONAL_EDGE') throw StatusError.badRequest(`type: Unsupported value: ${JSON.stringify(b['type'] ?? null)}: supported values: "CUSTOMER_EDGE", "REGIONAL_EDGE"`);
  const ttl = b['ttl_seconds'] ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TOKEN_TTL_SECONDS) {
    throw StatusError.badRequest(`ttl_seconds: Invalid value: ${JSON.stringify(ttl)}: must be a whole number from 1 to ${MAX_TOKEN_TTL_SECONDS}`);
  }
  return { type: b['type'], ttlSeconds: ttl };
}

/**
 * Pure: may `principal` issue a token for sites of `type`? Customer edge: an admin of its
 * tenant's `system` namespace (not the platform tenant, whose sites are regional edge).
 * Regional edge: only an administrator of the platform tenant.
 */
export function tokenIssueDenial(principal: Principal, type: SiteType): string | undefined {
  if (type === 'REGIONAL_EDGE') {
    return principal.tenant === PLATFORM_TENANT && principal.roles['*'] === 'admin' ? undefined : 'only the platform\'s administrators issue tokens for regional-edge sites';
  }
  if (principal.tenant === PLATFORM_TENANT) return 'the platform tenant registers regional-edge sites only';
  const decision = authorize(principal, 'manage', 'system');
  return decision.allowed ? undefined : `issuing site registration tokens needs the admin role in namespace system: ${decision.reason}`;
}

/**
 * Registration tokens (kubeadm join tokens' idea): the store keeps `{tenant, type, SHA-256 of
 * the secret, expiry}` under `/sites/tokens/<id>`, attached to a lease of the token's TTL so
 * it disappears when it expires; the expiry is also checked on use. A token may be used any
 * number of times until it expires.
 */
export class TokenService {
  constructor(private readonly deps: TokenServiceDependencies) {}

  async issue(principal: Principal, type: SiteType, ttlSeconds: number): Promise<{ token: string; expires: string }> {
    const denial = tokenIssueDenial(principal, type);
    if (denial !== undefined) throw StatusError.forbidden(TOKENS, '', denial);
    const now = this.deps.clock.now();
    const expires = metav1Time(now.getTime() + ttlSeconds * 1000);
    const { id, secret } = newTokenCredentials(this.deps.random);
    const record: TokenRecord = { tenant: principal.tenant, type, secret_sha256: secretDigest(secret), created: now.toISOString(), expires, issued_by: principal.user };
    const lease = await this.deps.store.grantLease(ttlSeconds);
    await this.deps.store.create(tokenKey(id), JSON.stringify(record), { lease });
    return { token: formatRegistrationToken({ id, secret, ca: this.deps.caPin, server: this.deps.publicUrl() }), expires };
  }

  /** The record of a valid, unexpired token; 401 Status otherwise. */
  async verify(token: string): Promise<TokenRecord> {
    let payload;
    try {
      payload = parseRegistrationToken(token);
    } catch (error) {
      throw StatusError.unauthorized(error instanceof InvalidTokenError ? error.message : 'invalid registration token');
    }
    const kv = await this.deps.store.get(tokenKey(payload.id));
    if (kv === undefined) throw StatusError.unauthorized('the registration token is unknown or has expired');
    const record = JSON.parse(kv.value) as TokenRecord;
    const stored = Buffer.from(record.secret_sha256, 'hex');
    const given = Buffer.from(secretDigest(payload.secret), 'hex');
    if (stored.length !== given.length || !timingSafeEqual(stored, given)) throw StatusError.unauthorized('the registration token is not valid');
    if (Date.parse(record.expires) <= this.deps.clock.now().getTime()) throw StatusError.unauthorized(`the registration token expired at ${record.expires}`);
    return record;
  }
}
