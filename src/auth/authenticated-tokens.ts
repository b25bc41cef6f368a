import type { PrefixCache } from '../store/prefix-cache.js';
import type { KeyValue } from '../store/types.js';
import type { Principal } from './principal.js';

/** What a token authenticated as, and the stored values that decided it. */
export interface TokenDecision {
  readonly principal: Principal;
  /** The token index entry and the credential record, as the `/auth/` cache held them. */
  readonly index: KeyValue;
  readonly record: KeyValue;
  /** The credential's expiration (ms since the epoch): valid strictly before it. */
  readonly expiresAtMs: number;
}

/**
 * Tokens that authenticated recently, so a request with one skips the SHA-256, the lookups
 * and the JSON parses. A remembered decision holds only while the `/auth/` cache still holds
 * the very values it was made from (the same KeyValue objects): revoking, deleting or
 * re-issuing the credential replaces them, and the token is checked afresh — the next request
 * after a revocation the cache has seen is refused, as without this memo. Expiry is checked
 * on every use. At most `limit` tokens are kept (the oldest go first).
 */
export class AuthenticatedTokens {
  private readonly decisions = new Map<string, TokenDecision>();

  constructor(
    private readonly cache: PrefixCache,
    private readonly limit = 10_000,
  ) {}

  /** The principal of `token` when a remembered decision still holds at `nowMs`. */
  principalOf(token: string, nowMs: number): Principal | undefined {
    const decision = this.decisions.get(token);
    if (decision === undefined) return undefined;
    if (nowMs < decision.expiresAtMs && this.holds(decision.index) && this.holds(decision.record)) return decision.principal;
    this.decisions.delete(token);
    return undefined;
  }

  /** Remembers a decision, if it was made from values the cache holds (not from a store read the cache has not seen). */
  remember(token: string, decision: TokenDecision): void {
    if (!this.holds(decision.index) || !this.holds(decision.record)) return;
    if (this.decisions.size >= this.limit) this.decisions.delete(this.decisions.keys().next().value as string);
    this.decisions.set(token, decision);
  }

  private holds(kv: KeyValue): boolean {
    const found = this.cache.lookup(kv.key);
    return found.state === 'present' && found.kv === kv;
  }
}
