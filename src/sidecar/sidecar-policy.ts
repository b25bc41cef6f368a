/** The timing rules of the sidecar; every field has a default (`DEFAULT_SIDECAR_POLICY`). */
export interface SidecarPolicy {
  /** Renew when this fraction of the identity's lifetime has passed (default 0.5). */
  readonly lifetimeFraction: number;
  /**
   * Spread of the renewal time, as a fraction of the lifetime on either side of
   * `lifetimeFraction` (default 0.1: renewal between 40 % and 60 %), drawn from the injected
   * randomness so pods started together do not all renew at once.
   */
  readonly renewalJitter: number;
  /** DEGRADED is possible once less than this fraction of the lifetime remains (default 0.2). */
  readonly expiryWindowFraction: number;
  /** First retry delay after a failure; each further failure doubles it (default 1 s). */
  readonly backoffBaseMs: number;
  /** Longest retry delay (default 60 s). */
  readonly backoffMaxMs: number;
  /** Spread of each retry delay, ± this fraction of it (default 0.2). */
  readonly backoffJitter: number;
  /** How long bootstrap may keep failing before the sidecar halts (default 5 min). */
  readonly retryBudgetMs: number;
}

export const DEFAULT_SIDECAR_POLICY: SidecarPolicy = {
  lifetimeFraction: 0.5,
  renewalJitter: 0.1,
  expiryWindowFraction: 0.2,
  backoffBaseMs: 1000,
  backoffMaxMs: 60_000,
  backoffJitter: 0.2,
  retryBudgetMs: 5 * 60_000,
};

/** The defaults with `overrides` applied; throws naming the first field that makes no sense. */
export function sidecarPolicy(overrides: Partial<SidecarPolicy> = {}): SidecarPolicy {
  const policy = { ...DEFAULT_SIDECAR_POLICY, ...overrides };
  const { lifetimeFraction: f, renewalJitter: j } = policy;
  const fraction = (name: string, value: number, min: number, max: number): void => {
    if (!(Number.isFinite(value) && value >= min && value <= max)) throw new Error(`sidecar policy: ${name} must be between ${min} and ${max}, not ${value}`);
  };
  fraction('lifetimeFraction', f, 0.05, 0.95);
  fraction('renewalJitter', j, 0, 0.5);
  if (f - j <= 0 || f + j >= 1) throw new Error(`sidecar policy: lifetimeFraction ± renewalJitter (${f} ± ${j}) must stay between 0 and 1 exclusive`);
  fraction('expiryWindowFraction', policy.expiryWindowFraction, 0.01, 0.9);
  fraction('backoffJitter', policy.backoffJitter, 0, 0.9);
  fraction('backoffBaseMs', policy.backoffBaseMs, 1, Number.MAX_SAFE_INTEGER);
  fraction('backoffMaxMs', policy.backoffMaxMs, policy.backoffBaseMs, Number.MAX_SAFE_INTEGER);
  fraction('retryBudgetMs', policy.retryBudgetMs, 0, Number.MAX_SAFE_INTEGER);
  return policy;
}
