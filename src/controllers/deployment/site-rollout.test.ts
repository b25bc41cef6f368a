import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rs } from './rollout-math.test.js';
import { planSiteRollout, type SiteRolloutInput } from './site-rollout.js';

const input = (over: Partial<SiteRolloutInput>): SiteRolloutInput => ({ strategy: { type: 'RollingUpdate', maxSurge: '25%', maxUnavailable: '25%' }, replicas: 2, paused: false, revisionHistoryLimit: 10, oldRSs: [], oldPodsRunning: false, ...over });

describe('site rollout plan', () => {
  it('site rollout creates the new replica set with all replicas when the site has none', () => {
    assert.deepEqual(planSiteRollout(input({})), [{ type: 'create', replicas: 2 }]);
  });

  it('site rollout surges first, then retires old pods as new ones become available', () => {
    // replicas 2 with 25%: surge ceil(0.5) = 1, unavailable floor(0.5) = 0.
    const d = { desiredReplicas: 2 };
    assert.deepEqual(planSiteRollout(input({ oldRSs: [rs('web-old', 2, 2, d)] })), [{ type: 'create', replicas: 1 }]);
    assert.deepEqual(planSiteRollout(input({ newRS: rs('web-new', 1, 0, d), oldRSs: [rs('web-old', 2, 2, d)] })), [], 'waits for the new pod');
    assert.deepEqual(planSiteRollout(input({ newRS: rs('web-new', 1, 1, d), oldRSs: [rs('web-old', 2, 2, d)] })), [{ type: 'scale', name: 'web-old', replicas: 1 }]);
    assert.deepEqual(planSiteRollout(input({ newRS: rs('web-new', 1, 1, d), oldRSs: [rs('web-old', 1, 1, d)] })), [{ type: 'scale', name: 'web-new', replicas: 2 }]);
    assert.deepEqual(planSiteRollout(input({ newRS: rs('web-new', 2, 2, d), oldRSs: [rs('web-old', 1, 1, d)] })), [{ type: 'scale', name: 'web-old', replicas: 0 }]);
  });

  it('site rollout with Recreate drains old replica sets and waits for their pods before creating', () => {
    const recreate = { type: 'Recreate' } as const;
    assert.deepEqual(planSiteRollout(input({ strategy: recreate, oldRSs: [rs('web-old', 2)] })), [{ type: 'scale', name: 'web-old', replicas: 0 }]);
    assert.deepEqual(planSiteRollout(input({ strategy: recreate, oldRSs: [rs('web-old', 0)], oldPodsRunning: true })), []);
    assert.deepEqual(planSiteRollout(input({ strategy: recreate, oldRSs: [rs('web-old', 0)] })), [{ type: 'create', replicas: 2 }]);
  });

  it('site rollout while paused only resizes and never creates', () => {
    const paused = planSiteRollout(input({ paused: true, replicas: 3, oldRSs: [rs('web-old', 2, 2, { desiredReplicas: 2 })] }));
    assert.deepEqual(paused, [{ type: 'scale', name: 'web-old', replicas: 3 }]);
  });

  it('site rollout deletes the oldest empty revisions beyond the history limit once complete', () => {
    const olds = [rs('web-r1', 0, 0, { revision: 1 }), rs('web-r2', 0, 0, { revision: 2 }), rs('web-r3', 0, 0, { revision: 3 })];
    const plan = planSiteRollout(input({ revisionHistoryLimit: 1, newRS: rs('web-r4', 2, 2, { revision: 4, desiredReplicas: 2 }), oldRSs: olds }));
    assert.deepEqual(plan, [{ type: 'delete', name: 'web-r1' }, { type: 'delete', name: 'web-r2' }]);
  });
});
