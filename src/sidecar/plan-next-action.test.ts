import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expiryWindowStart, planNextAction, renewalTime, retryDelayMs } from './plan-next-action.js';
import { DEFAULT_SIDECAR_POLICY as policy, sidecarPolicy } from './sidecar-policy.js';
import type { SidecarState } from './sidecar-state.js';

const HOUR = 3_600_000;
const identity = { notBefore: 0, notAfter: 24 * HOUR };
const lowest = (): number => 0;
const highest = (): number => 1 - Number.EPSILON;
const middle = (): number => 0.5;

/** A deterministic source of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('sidecar planner', () => {
  it('planner renews between 40 % and 60 % of the lifetime by default', () => {
    assert.equal(renewalTime(identity, 0, policy, lowest), 34_560_000);
    assert.equal(renewalTime(identity, 0, policy, middle), 12 * HOUR);
    assert.ok(Math.abs(renewalTime(identity, 0, policy, highest) - 51_840_000) < 1);
  });

  it('planner spreads the renewals of pods started together over the jitter range', () => {
    const random = seeded(7);
    const times = Array.from({ length: 1000 }, () => renewalTime(identity, 0, policy, random) / HOUR);
    assert.ok(Math.min(...times) >= 9.6 && Math.max(...times) <= 14.4, 'inside 40 %–60 % of 24 h');
    const buckets = new Set(times.map((t) => Math.floor(t)));
    assert.deepEqual([...buckets].sort((a, b) => a - b), [9, 10, 11, 12, 13, 14], 'every hour of the range gets renewals');
    const sameMinute = new Map<number, number>();
    for (const t of times) sameMinute.set(Math.floor(t * 60), (sameMinute.get(Math.floor(t * 60)) ?? 0) + 1);
    assert.ok(Math.max(...sameMinute.values()) < 30, 'no minute gets a storm of renewals');
  });

  it('planner counts the lifetime from arrival when notBefore is backdated', () => {
    const shortLived = { notBefore: -5 * 60_000, notAfter: 60_000 };
    const at = renewalTime(shortLived, 0, policy, middle);
    assert.equal(at, 30_000, 'half of the minute left, not at once');
    assert.equal(renewalTime({ notBefore: 1000, notAfter: 11_000 }, 0, policy, middle), 6000, 'notBefore after arrival (clock skew) counts from notBefore');
  });

  it('planner backs off exponentially, capped, within the jitter', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 20, 5000].map((n) => retryDelayMs(n, policy, middle)), [1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000, 60_000]);
    assert.equal(retryDelayMs(3, policy, lowest), 3200);
    assert.ok(Math.abs(retryDelayMs(3, policy, highest) - 4800) <= 1);
    assert.equal(retryDelayMs(3, sidecarPolicy({ backoffJitter: 0 }), highest), 4000);
  });

  it('planner bootstraps at once, retries with back-off, and halts at the end of the budget', () => {
    assert.deepEqual(planNextAction({ kind: 'INITIALIZING', since: 500, failures: 0 }, policy, middle), {
      fetch: { kind: 'bootstrap', at: 500 },
      deadline: { event: 'RETRY_BUDGET_EXHAUSTED', at: 500 + 5 * 60_000 },
    });
    const failed: SidecarState = { kind: 'INITIALIZING', since: 500, failures: 3, lastFailureAt: 9000, lastError: 'x' };
    assert.deepEqual(planNextAction(failed, sidecarPolicy({ retryBudgetMs: 20_000 }), middle), {
      fetch: { kind: 'bootstrap', at: 13_000 },
      deadline: { event: 'RETRY_BUDGET_EXHAUSTED', at: 20_500 },
    });
  });

  it('planner renews a READY identity and watches for the expiry window, then for expiry', () => {
    const ready: SidecarState = { kind: 'READY', identity, issuedAt: 0, inExpiryWindow: false, failures: 0 };
    assert.equal(expiryWindowStart(identity, policy), 69_120_000);
    assert.deepEqual(planNextAction(ready, policy, middle), {
      fetch: { kind: 'renew', at: 12 * HOUR },
      deadline: { event: 'EXPIRY_WINDOW_REACHED', at: 69_120_000 },
    });
    assert.deepEqual(planNextAction({ ...ready, inExpiryWindow: true }, policy, middle).deadline, { event: 'IDENTITY_EXPIRED', at: 24 * HOUR });
  });

  it('planner retries a failed renewal with back-off, in READY and in DEGRADED', () => {
    const failing: SidecarState = { kind: 'READY', identity, issuedAt: 0, inExpiryWindow: false, failures: 2, lastFailureAt: 13 * HOUR, lastError: 'x' };
    assert.deepEqual(planNextAction(failing, policy, middle).fetch, { kind: 'renew', at: 13 * HOUR + 2000 });
    const degraded: SidecarState = { kind: 'DEGRADED', identity, issuedAt: 0, failures: 9, lastFailureAt: 20 * HOUR, lastError: 'x' };
    assert.deepEqual(planNextAction(degraded, policy, middle), {
      fetch: { kind: 'renew', at: 20 * HOUR + 60_000 },
      deadline: { event: 'IDENTITY_EXPIRED', at: 24 * HOUR },
    });
  });

  it('planner plans nothing for HALTED', () => {
    assert.deepEqual(planNextAction({ kind: 'HALTED', since: 1, reason: 'IDENTITY_EXPIRED' }, policy, middle), {});
  });

  it('sidecar policy refuses settings that make no sense, naming them', () => {
    assert.throws(() => sidecarPolicy({ lifetimeFraction: 1.5 }), /lifetimeFraction must be between 0.05 and 0.95, not 1.5/);
    assert.throws(() => sidecarPolicy({ lifetimeFraction: 0.9, renewalJitter: 0.2 }), /lifetimeFraction ± renewalJitter \(0.9 ± 0.2\)/);
    assert.throws(() => sidecarPolicy({ backoffMaxMs: 10 }), /backoffMaxMs must be between 1000/);
    assert.throws(() => sidecarPolicy({ retryBudgetMs: Number.NaN }), /retryBudgetMs/);
    assert.deepEqual(sidecarPolicy(), policy);
  });
});
