import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { haltedMessage, haltedWithoutIdentity, sidecarReady } from './sidecar-rules.js';

const INITIALIZING = { state: 'INITIALIZING' };
const READY = { state: 'READY' };
const DEGRADED = { state: 'DEGRADED', reason: 'renewal failed' };
const BUDGET = { state: 'HALTED', reason: 'RETRY_BUDGET_EXHAUSTED: connect ECONNREFUSED' };
const EXPIRED = { state: 'HALTED', reason: 'IDENTITY_EXPIRED' };

describe('sidecarReady', () => {
  it('a brand-new pod: ready only while it runs holding an identity (READY or DEGRADED)', () => {
    assert.equal(sidecarReady(READY, true, false), true);
    assert.equal(sidecarReady(DEGRADED, true, false), true);
    assert.equal(sidecarReady(READY, false, false), false, 'its container exited');
    for (const state of [undefined, INITIALIZING, BUDGET, EXPIRED]) assert.equal(sidecarReady(state, true, false), false, JSON.stringify(state));
  });

  it('a pod whose workload ran on the site (resumed after a machine restart): a sidecar with no identity yet keeps it in service', () => {
    assert.equal(sidecarReady(INITIALIZING, true, true), true);
    assert.equal(sidecarReady(undefined, true, true), true, 'just started, no state file yet');
    assert.equal(sidecarReady(BUDGET, true, true), true, 'halted for its budget, about to be restarted');
    assert.equal(sidecarReady(BUDGET, false, true), true, 'waiting out its crash back-off');
    assert.equal(sidecarReady(INITIALIZING, false, true), false, 'its container is gone');
    assert.equal(sidecarReady(EXPIRED, true, true), false, 'an identity that expired stays a failure');
    assert.equal(sidecarReady(READY, true, true), true);
  });
});

describe('haltedWithoutIdentity and haltedMessage', () => {
  it('tell a halt for the retry budget (restarted) from an expired identity (terminal)', () => {
    assert.equal(haltedWithoutIdentity(BUDGET), true);
    assert.equal(haltedWithoutIdentity(EXPIRED), false);
    assert.equal(haltedWithoutIdentity(INITIALIZING), false);
    assert.equal(haltedMessage(READY, true), undefined);
    assert.match(haltedMessage(BUDGET, true) ?? '', /RETRY_BUDGET_EXHAUSTED: connect ECONNREFUSED\): it is restarted with back-off .*the workload keeps running$/);
    assert.match(haltedMessage(BUDGET, false) ?? '', /the pod is not ready until it has an identity$/);
    assert.equal(haltedMessage(EXPIRED, true), 'The workload sidecar halted (IDENTITY_EXPIRED): the pod has no identity and is not ready');
  });
});
