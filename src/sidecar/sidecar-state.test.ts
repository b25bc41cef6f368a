import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { initialSidecarState, type SidecarEvent, type SidecarEventType, type SidecarState, sidecarTransition } from './sidecar-state.js';

const identity = { notBefore: 1_000, notAfter: 101_000 };
const renewed = { notBefore: 50_000, notAfter: 150_000 };
const at = 60_000;

const events: Record<SidecarEventType, SidecarEvent> = {
  IDENTITY_ISSUED: { type: 'IDENTITY_ISSUED', at, identity: renewed },
  FETCH_FAILED: { type: 'FETCH_FAILED', at, error: 'connection refused' },
  EXPIRY_WINDOW_REACHED: { type: 'EXPIRY_WINDOW_REACHED', at },
  IDENTITY_EXPIRED: { type: 'IDENTITY_EXPIRED', at },
  RETRY_BUDGET_EXHAUSTED: { type: 'RETRY_BUDGET_EXHAUSTED', at },
};

/** One sample of every state (and of READY's variants that change its transitions). */
const states = {
  'INITIALIZING (no failure)': initialSidecarState(0),
  'INITIALIZING (failed before)': { kind: 'INITIALIZING', since: 0, failures: 2, lastFailureAt: 5_000, lastError: 'timeout' },
  'READY (before the window)': { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: false, failures: 0 },
  'READY (a renewal failed, before the window)': { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: false, failures: 1, lastFailureAt: 55_000, lastError: 'refused' },
  'READY (in the window)': { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: true, failures: 0 },
  DEGRADED: { kind: 'DEGRADED', identity, issuedAt: 2_000, failures: 3, lastFailureAt: 85_000, lastError: 'refused' },
  'HALTED (budget)': { kind: 'HALTED', since: 40_000, reason: 'RETRY_BUDGET_EXHAUSTED', lastError: 'timeout' },
  'HALTED (expired)': { kind: 'HALTED', since: 40_000, reason: 'IDENTITY_EXPIRED' },
} satisfies Record<string, SidecarState>;

type StateName = keyof typeof states;

const newReady: SidecarState = { kind: 'READY', identity: renewed, issuedAt: at, inExpiryWindow: false, failures: 0 };

/** The expected result of every (state, event) pair; `same` means the state is returned unchanged. */
const expected: Record<StateName, Record<SidecarEventType, SidecarState | 'same'>> = {
  'INITIALIZING (no failure)': {
    IDENTITY_ISSUED: newReady,
    FETCH_FAILED: { kind: 'INITIALIZING', since: 0, failures: 1, lastFailureAt: at, lastError: 'connection refused' },
    EXPIRY_WINDOW_REACHED: 'same',
    IDENTITY_EXPIRED: 'same',
    RETRY_BUDGET_EXHAUSTED: { kind: 'HALTED', since: at, reason: 'RETRY_BUDGET_EXHAUSTED' },
  },
  'INITIALIZING (failed before)': {
    IDENTITY_ISSUED: newReady,
    FETCH_FAILED: { kind: 'INITIALIZING', since: 0, failures: 3, lastFailureAt: at, lastError: 'connection refused' },
    EXPIRY_WINDOW_REACHED: 'same',
    IDENTITY_EXPIRED: 'same',
    RETRY_BUDGET_EXHAUSTED: { kind: 'HALTED', since: at, reason: 'RETRY_BUDGET_EXHAUSTED', lastError: 'timeout' },
  },
  'READY (before the window)': {
    IDENTITY_ISSUED: newReady,
    FETCH_FAILED: { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: false, failures: 1, lastFailureAt: at, lastError: 'connection refused' },
    EXPIRY_WINDOW_REACHED: { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: true, failures: 0 },
    IDENTITY_EXPIRED: { kind: 'HALTED', since: at, reason: 'IDENTITY_EXPIRED' },
    RETRY_BUDGET_EXHAUSTED: 'same',
  },
  'READY (a renewal failed, before the window)': {
    IDENTITY_ISSUED: newReady,
    FETCH_FAILED: { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: false, failures: 2, lastFailureAt: at, lastError: 'connection refused' },
    EXPIRY_WINDOW_REACHED: { kind: 'DEGRADED', identity, issuedAt: 2_000, failures: 1, lastFailureAt: 55_000, lastError: 'refused' },
    IDENTITY_EXPIRED: { kind: 'HALTED', since: at, reason: 'IDENTITY_EXPIRED', lastError: 'refused' },
    RETRY_BUDGET_EXHAUSTED: 'same',
  },
  'READY (in the window)': {
    IDENTITY_ISSUED: newReady,
    FETCH_FAILED: { kind: 'DEGRADED', identity, issuedAt: 2_000, failures: 1, lastFailureAt: at, lastError: 'connection refused' },
    EXPIRY_WINDOW_REACHED: { kind: 'READY', identity, issuedAt: 2_000, inExpiryWindow: true, failures: 0 },
    IDENTITY_EXPIRED: { kind: 'HALTED', since: at, reason: 'IDENTITY_EXPIRED' },
    RETRY_BUDGET_EXHAUSTED: 'same',
  },
  DEGRADED: {
    IDENTITY_ISSUED: newReady,
    FETCH_FAILED: { kind: 'DEGRADED', identity, issuedAt: 2_000, failures: 4, lastFailureAt: at, lastError: 'connection refused' },
    EXPIRY_WINDOW_REACHED: 'same',
    IDENTITY_EXPIRED: { kind: 'HALTED', since: at, reason: 'IDENTITY_EXPIRED', lastError: 'refused' },
    RETRY_BUDGET_EXHAUSTED: 'same',
  },
  'HALTED (budget)': { IDENTITY_ISSUED: 'same', FETCH_FAILED: 'same', EXPIRY_WINDOW_REACHED: 'same', IDENTITY_EXPIRED: 'same', RETRY_BUDGET_EXHAUSTED: 'same' },
  'HALTED (expired)': { IDENTITY_ISSUED: 'same', FETCH_FAILED: 'same', EXPIRY_WINDOW_REACHED: 'same', IDENTITY_EXPIRED: 'same', RETRY_BUDGET_EXHAUSTED: 'same' },
};

describe('sidecar state machine', () => {
  for (const [name, state] of Object.entries(states) as Array<[StateName, SidecarState]>) {
    for (const [type, event] of Object.entries(events) as Array<[SidecarEventType, SidecarEvent]>) {
      const outcome = expected[name][type];
      it(`${name} on ${type} → ${outcome === 'same' ? 'unchanged' : outcome.kind}`, () => {
        const frozen = structuredClone(state);
        const next = sidecarTransition(state, event);
        if (outcome === 'same') assert.equal(next, state);
        else assert.deepEqual(next, outcome);
        assert.deepEqual(state, frozen, 'the transition must not modify its input');
      });
    }
  }

  it('sidecar state machine covers every state kind and event type in its table', () => {
    const kinds = new Set(Object.values(states).map((s) => s.kind));
    assert.deepEqual([...kinds].sort(), ['DEGRADED', 'HALTED', 'INITIALIZING', 'READY']);
    for (const row of Object.values(expected)) assert.deepEqual(Object.keys(row).sort(), Object.keys(events).sort());
  });

  it('sidecar state machine starts INITIALIZING with no failures', () => {
    assert.deepEqual(initialSidecarState(42), { kind: 'INITIALIZING', since: 42, failures: 0 });
  });
});
