import type { SidecarPolicy } from './sidecar-policy.js';
import type { Degraded, IdentityValidity, Initializing, Ready, SidecarEventType, SidecarState } from './sidecar-state.js';

/** The events the planner schedules: they happen because time passes. */
type DeadlineEvent = Extract<SidecarEventType, 'EXPIRY_WINDOW_REACHED' | 'IDENTITY_EXPIRED' | 'RETRY_BUDGET_EXHAUSTED'>;

/** What the driver does next, in epoch ms (a time in the past means "now"). */
export interface SidecarPlan {
  /** The next certificate request: `bootstrap` with the token, `renew` over mTLS. */
  readonly fetch?: { readonly kind: 'bootstrap' | 'renew'; readonly at: number };
  /** The next deadline: its event is dispatched when `at` passes. */
  readonly deadline?: { readonly event: DeadlineEvent; readonly at: number };
}

/**
 * The delay before retry number `failures` (1 for the first): `backoffBaseMs · 2^(failures−1)`,
 * at most `backoffMaxMs`, then spread ± `backoffJitter` by `random()` in [0, 1).
 */
export function retryDelayMs(failures: number, policy: SidecarPolicy, random: () => number): number {
  const base = Math.min(policy.backoffBaseMs * 2 ** Math.min(Math.max(failures - 1, 0), 52), policy.backoffMaxMs);
  return Math.round(base * (1 - policy.backoffJitter + 2 * policy.backoffJitter * random()));
}

/**
 * When to renew an identity that arrived at `issuedAt`: `lifetimeFraction` ± `renewalJitter` of
 * its lifetime, counted from when it became usable here (the later of notBefore and its
 * arrival: issuers backdate notBefore, and a short-lived identity must not be renewed on arrival).
 */
export function renewalTime(identity: IdentityValidity, issuedAt: number, policy: SidecarPolicy, random: () => number): number {
  const start = Math.max(identity.notBefore, Math.min(issuedAt, identity.notAfter));
  const fraction = policy.lifetimeFraction + policy.renewalJitter * (2 * random() - 1);
  return Math.round(start + (identity.notAfter - start) * fraction);
}

/** Where the expiry window of an identity begins: `expiryWindowFraction` of its lifetime before notAfter. */
export function expiryWindowStart(identity: IdentityValidity, policy: SidecarPolicy): number {
  return Math.round(identity.notAfter - (identity.notAfter - identity.notBefore) * policy.expiryWindowFraction);
}

function retryAt(state: { failures: number; lastFailureAt?: number }, policy: SidecarPolicy, random: () => number): number | undefined {
  return state.lastFailureAt === undefined ? undefined : state.lastFailureAt + retryDelayMs(state.failures, policy, random);
}

function planInitializing(state: Initializing, policy: SidecarPolicy, random: () => number): SidecarPlan {
  return {
    fetch: { kind: 'bootstrap', at: retryAt(state, policy, random) ?? state.since },
    deadline: { event: 'RETRY_BUDGET_EXHAUSTED', at: state.since + policy.retryBudgetMs },
  };
}

function planReady(state: Ready, policy: SidecarPolicy, random: () => number): SidecarPlan {
  const at = retryAt(state, policy, random) ?? renewalTime(state.identity, state.issuedAt, policy, random);
  const deadline: SidecarPlan['deadline'] = state.inExpiryWindow
    ? { event: 'IDENTITY_EXPIRED', at: state.identity.notAfter }
    : { event: 'EXPIRY_WINDOW_REACHED', at: expiryWindowStart(state.identity, policy) };
  return { fetch: { kind: 'renew', at }, deadline };
}

function planDegraded(state: Degraded, policy: SidecarPolicy, random: () => number): SidecarPlan {
  return {
    fetch: { kind: 'renew', at: state.lastFailureAt + retryDelayMs(state.failures, policy, random) },
    deadline: { event: 'IDENTITY_EXPIRED', at: state.identity.notAfter },
  };
}

/**
 * The pure planner: from a state, the next request and the next deadline.
 * - INITIALIZING: bootstrap at once, then after each failure with exponential back-off;
 *   the retry budget's end (counted from the first attempt) is the deadline.
 * - READY: renew at about `lifetimeFraction` of the lifetime (jittered), or retry with back-off
 *   after a failed renewal; the deadline is the expiry window's start, then notAfter.
 * - DEGRADED: retry with back-off until notAfter.
 * - HALTED: nothing.
 * `random` returns numbers in [0, 1); it is consulted once per jittered time.
 */
export function planNextAction(state: SidecarState, policy: SidecarPolicy, random: () => number): SidecarPlan {
  switch (state.kind) {
    case 'INITIALIZING':
      return planInitializing(state, policy, random);
    case 'READY':
      return planReady(state, policy, random);
    case 'DEGRADED':
      return planDegraded(state, policy, random);
    case 'HALTED':
      return {};
  }
}
