import type { VaultConnection } from './vault-connection.js';
import { VaultError } from './vault-error.js';
import type { VaultTransport } from './vault-transport.js';

/** The client token held, and its lease as Vault told it. */
export interface TokenLease {
  readonly token: string;
  /** When it was obtained or last renewed (ms since the epoch). */
  readonly since: number;
  /** Seconds the lease lasts from `since`; 0 for a token that does not expire. */
  readonly leaseSeconds: number;
  readonly renewable: boolean;
}

export type TokenAction = 'use' | 'renew' | 'login';

/**
 * Pure: what to do before a request. A lease past `renewAt` (a fraction of it, default two
 * thirds) is renewed when renewable and replaced by a new login otherwise; an expired one
 * is replaced. Tokens given as such (not from a login) have no known lease and are used.
 */
export function nextTokenAction(lease: TokenLease | undefined, now: number, renewAt = 2 / 3): TokenAction {
  if (lease === undefined) return 'login';
  if (lease.leaseSeconds === 0) return 'use';
  const elapsed = (now - lease.since) / 1000;
  if (elapsed >= lease.leaseSeconds) return 'login';
  if (elapsed >= lease.leaseSeconds * renewAt) return lease.renewable ? 'renew' : 'login';
  return 'use';
}

function errorsOf(body: unknown): string {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) && errors.length > 0 ? errors.map(String).join('; ') : 'no reason given';
}

function leaseOf(body: unknown, now: number, what: string, provider: string): TokenLease {
  const auth = (body as { auth?: { client_token?: unknown; lease_duration?: unknown; renewable?: unknown } } | undefined)?.auth;
  if (typeof auth?.client_token !== 'string' || typeof auth.lease_duration !== 'number') throw new VaultError('BadResponse', `Vault ${provider} answered the ${what} without auth.client_token and auth.lease_duration`);
  return { token: auth.client_token, since: now, leaseSeconds: auth.lease_duration, renewable: auth.renewable === true };
}

/**
 * The client token of one Vault connection: a given token as is, or an AppRole login whose
 * token is renewed (`auth/token/renew-self`) once two thirds of its lease have passed and
 * replaced by a new login when renewal is refused or the lease ran out. Concurrent callers
 * share one login or renewal.
 */
export class VaultSession {
  private lease: TokenLease | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly connection: VaultConnection,
    private readonly transport: VaultTransport,
    private readonly now: () => number = Date.now,
  ) {}

  /** A token to use now. */
  token(): Promise<string> {
    const action = nextTokenAction(this.lease, this.now());
    if (action === 'use' && this.lease !== undefined) return Promise.resolve(this.lease.token);
    this.pending ??= (action === 'renew' ? this.renew() : this.login()).finally(() => (this.pending = undefined));
    return this.pending;
  }

  /** Forgets the token (Vault refused it): the next call logs in again. False when a new login cannot help (a given token). */
  invalidate(): boolean {
    this.lease = undefined;
    return this.connection.credentials.type === 'app_role';
  }

  private async login(): Promise<string> {
    const credentials = this.connection.credentials;
    if (credentials.type === 'token') {
      this.lease = { token: credentials.token, since: this.now(), leaseSeconds: 0, renewable: false };
      return credentials.token;
    }
    const res = await this.transport.send('POST', '/v1/auth/approle/login', { body: { role_id: credentials.roleId, secret_id: credentials.secretId } });
    if (res.status === 200) {
      this.lease = leaseOf(res.body, this.now(), 'AppRole login', this.connection.provider);
      return this.lease.token;
    }
    if (res.status === 400 || res.status === 401 || res.status === 403) throw new VaultError('LoginRefused', `Vault ${this.connection.provider} refused the AppRole login (${res.status}): ${errorsOf(res.body)}`);
    throw new VaultError(res.status >= 500 || res.status === 429 ? 'VaultUnavailable' : 'BadResponse', `Vault ${this.connection.provider} answered the AppRole login with ${res.status}: ${errorsOf(res.body)}`);
  }

  private async renew(): Promise<string> {
    const current = this.lease as TokenLease;
    const res = await this.transport.send('POST', '/v1/auth/token/renew-self', { token: current.token, body: {} }).catch(() => undefined);
    if (res?.status === 200) {
      const renewed = leaseOf(res.body, this.now(), 'token renewal', this.connection.provider);
      if (renewed.leaseSeconds <= 0) return this.login();
      this.lease = { ...renewed, token: current.token };
      // A renewal Vault capped (max TTL reached) gives less than asked: a new login follows at the next threshold.
      return current.token;
    }
    return this.login();
  }
}
