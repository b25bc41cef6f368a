import { timingSafeEqual } from 'node:crypto';
import { StatusError } from '../apimachinery/errors/status-error.js';
import { authorize } from '../auth/authorize.js';
import { PLATFORM_TENANT, type Principal } from '../auth/principal.js';
import type { Clock } from '../common/clock.js';
import { isStoreError } from '../store/errors.js';
import type { KeyValue, Store } from '../store/types.js';
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

/** A token request's body, checked: `{"type", "ttl_seconds"?, "max_uses"?, "site"?}`. */
export interface TokenRequest {
  readonly type: SiteType;
  readonly ttlSeconds: number;
  readonly maxUses?: number;
  /** Minted for this existing site (moving it to another agent). */
  readonly site?: string;
}

const TOKEN_FIELDS = new Set(['type', 'ttl_seconds', 'max_uses', 'site']);
const MAX_USES = 10_000;

export function parseTokenRequest(body: unknown): TokenRequest {
  const b = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  for (const key of Object.keys(b)) if (!TOKEN_FIELDS.has(key)) throw StatusError.badRequest(`${key}: unknown field`);
  if (b['type'] !== 'CUSTOMER_EDGE' && b['type'] !== 'REGIONAL_EDGE') throw StatusError.badRequest(`type: Unsupported value: ${JSON.stringify(b['type'] ?? null)}: supported values: "CUSTOMER_EDGE", "REGIONAL_EDGE"`);
  const ttl = b['ttl_seconds'] ?? DEFAULT_TOKEN_TTL_SECONDS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TOKEN_TTL_SECONDS) {
    throw StatusError.badRequest(`ttl_seconds: Invalid value: ${JSON.stringify(ttl)}: must be a whole number from 1 to ${MAX_TOKEN_TTL_SECONDS}`);
  }
  const uses = b['max_uses'];
  if (uses !== undefined && (typeof uses !== 'number' || !Number.isInteger(uses) || uses < 1 || uses > MAX_USES)) {
    throw StatusError.badRequest(`max_uses: Invalid value: ${JSON.stringify(uses)}: must be a whole number from 1 to ${MAX_USES}`);
  }
  const site = b['site'];
  if (site !== undefined && (typeof site !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(site) || site.length > 63)) {
    throw StatusError.badRequest(`site: Invalid value: ${JSON.stringify(site)}: must be the name of an existing site`);
  }
  return { type: b['type'], ttlSeconds: ttl, ...(uses === undefined ? {} : { maxUses: uses }), ...(site === undefined ? {} : { site }) };
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
 * the secret, expiry, uses}` under `/sites/tokens/<id>`, attached to a lease of the token's TTL
 * so it disappears when it expires; the expiry is also checked on use. Every registration
 * counts a use; a token with `max_uses` is refused once they are spent. A token minted for a
 * site (`site`) is the one way to move that site to another agent (see the registrar).
 */
export class TokenService {
  constructor(private readonly deps: TokenServiceDependencies) {}

  /**
   * Issues a token. `site`, when given, must be an existing site the issuer could register:
   * `siteOf` answers with its claim (tenant and type) or undefined.
   */
  async issue(principal: Principal, request: TokenRequest, siteOf: (name: string) => { tenant: string; type: SiteType } | undefined): Promise<{ token: string; expires: string }> {
    const { type, ttlSeconds } = request;
    const denial = tokenIssueDenial(principal, type);
    if (denial !== undefined) throw StatusError.forbidden(TOKENS, '', denial);
    if (request.site !== undefined) {
      const claim = siteOf(request.site);
      if (claim === undefined || claim.tenant !== (type === 'REGIONAL_EDGE' ? PLATFORM_TENANT : principal.tenant) || claim.type !== type) {
        throw StatusError.notFound({ resource: 'sites', group: TOKENS.group }, request.site);
      }
    }
    const now = this.deps.clock.now();
    const expires = metav1Time(now.getTime() + ttlSeconds * 1000);
    const { id, secret } = newTokenCredentials(this.deps.random);
    const record: TokenRecord = {
      tenant: principal.tenant,
      type,
      secret_sha256: secretDigest(secret),
      created: now.toISOString(),
      expires,
      issued_by: principal.user,
      uses: 0,
      ...(request.maxUses === undefined ? {} : { max_uses: request.maxUses }),
      ...(request.site === undefined ? {} : { site: request.site }),
    };
    const lease = await this.deps.store.grantLease(ttlSeconds);
    await this.deps.store.create(tokenKey(id), JSON.stringify(record), { lease });
    return { token: formatRegistrationToken({ id, secret, ca: this.deps.caPin, server: this.deps.publicUrl() }), expires };
  }

  /** The record of a valid, unexpired token with uses left; 401 Status otherwise. Counts nothing. */
  async verify(token: string): Promise<TokenRecord> {
    return (await this.check(token)).record;
  }

  /** {@link verify}, then counts one use (compare-and-swap, the token keeping its lease): a registration. */
  async use(token: string): Promise<TokenRecord & { readonly id: string }> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const { id, record, kv } = await this.check(token);
      const used: TokenRecord = { ...record, uses: (record.uses ?? 0) + 1 };
      try {
        await this.deps.store.update(kv.key, JSON.stringify(used), kv.modRevision, kv.lease === undefined ? {} : { lease: kv.lease });
        return { ...used, id };
      } catch (error) {
        if (!isStoreError(error, 'Conflict')) throw error;
      }
    }
    throw StatusError.conflict(TOKENS, '', 'the registration token is being used by many registrations at once; try again');
  }

  private async check(token: string): Promise<{ id: string; record: TokenRecord; kv: KeyValue }> {
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
    if (record.max_uses !== undefined && (record.uses ?? 0) >= record.max_uses) {
      throw StatusError.unauthorized(`the registration token was used ${record.uses ?? 0} time${record.uses === 1 ? '' : 's'}, all it may be`);
    }
    return { id: payload.id, record, kv };
  }
}
