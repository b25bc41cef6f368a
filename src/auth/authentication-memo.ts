import type { PrefixCache } from '../store/prefix-cache.js';
import type { KeyValue } from '../store/types.js';
import type { Principal } from './principal.js';

/** What a credential authenticated as, and the stored values that decided it. */
export interface AuthenticationDecision {
  readonly principal: Principal;
  /** The index entry (token or certificate) and the credential record, as the `/auth/` cache held them. */
  readonly index: KeyValue;
  readonly record: KeyValue;
  /** The credential's expiration (ms since the epoch): valid strictly before it. */
  readonly expiresAtMs: number;
}

/**
 * Credentials that authenticated recently (API tokens, client certificate serials), so a
 * request with one skips the SHA-256, the lookups and the JSON parses. A remembered decision
 * holds only while the `/auth/` cache still holds the very values it was made from (the same
 * KeyValue objects): revoking, deleting or re-issuing the credential replaces them, and the
 * credential is checked afresh — the next request after a revocation the cache has seen is
 * refused, as without this memo. Expiry is checked on every use. At most `limit` credentials
 * are kept (the oldest go first).
 */
export class AuthenticationMemo<P extends Principal = Principal> {
  private readonly decisions = new Map<string, AuthenticationDecision & { readonly principal: P }>();

  constructor(
    private readonly cache: PrefixCache,
    private readonly limit = 10_000,
  ) {}

  /** The principal of `credential` (a token, a certificate serial) when a remembered decision still holds at `nowMs`. */
  principalOf(credential: string, nowMs: number): P | undefined {
    const decision = this.decisions.get(credential);
    if (decision === undefined) return undefined;
    if (nowMs < decision.expiresAtMs && this.holds(decision.index) && this.holds(decision.record)) return decision.principal;
    this.decisions.delete(credential);
    return undefined;
  }

  /** Remembers a decision, if it was made from values the cache holds (not from a store read the cache has not seen). */
  remember(credential: string, decision: AuthenticationDecision & { readonly principal: P }): void {
    if (!this.holds(decision.index) || !this.holds(decision.record)) return;
    if (this.decisions.size >= this.limit) this.decisions.delete(this.decisions.keys().next().value as string);
    this.decisions.set(credential, decision);
  }

  private holds(kv: KeyValue): boolean {
    const found = this.cache.lookup(kv.key);
    return found.state === 'present' && found.kv === kv;
  }
}
