import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RsView } from './replica-set-view.js';
import { maxSurgeOf, maxUnavailableOf, newReplicaSetSize, oldReplicaSetSizes, proportionalSizes, resolveFenceposts, valueFromIntOrPercent, type RolloutStrategy } from './rollout-math.js';

const rolling = (maxSurge: number | string = '25%', maxUnavailable: number | string = '25%'): RolloutStrategy => ({ type: 'RollingUpdate', maxSurge, maxUnavailable });
export function rs(name: string, spec: number, available = spec, extra: Partial<RsView> = {}): RsView {
  return { name, specReplicas: spec, statusReplicas: spec, readyReplicas: available, availableReplicas: available, createdAt: `2024-05-01T12:00:0${name.length % 10}Z`, revision: 1, generation: 1, observedGeneration: 1, deleting: false, ...extra };
}

describe('rollout arithmetic', () => {
  it('rollout arithmetic rounds surge up and unavailability down, as kube', () => {
    assert.equal(valueFromIntOrPercent('25%', 10, true), 3);
    assert.equal(valueFromIntOrPercent('25%', 10, false), 2);
    assert.equal(valueFromIntOrPercent(4, 10, false), 4);
    assert.deepEqual(resolveFenceposts('25%', '25%', 1), { surge: 1, unavailable: 0 });
    assert.deepEqual(resolveFenceposts(0, '10%', 3), { surge: 0, unavailable: 1 }, 'both zero would stall: one may be unavailable');
    assert.equal(maxSurgeOf({ type: 'Recreate' }, 10), 0);
    assert.equal(maxUnavailableOf(rolling(0, 20), 3), 3, 'never more than the replicas');
    assert.equal(maxUnavailableOf(rolling(), 0), 0);
  });

  it('rollout arithmetic grows the new replica set within maxSurge and never past the replicas', () => {
    const old = rs('web-old', 4);
    assert.equal(newReplicaSetSize(rolling(), 4, [old], undefined), 1, '4 + ceil(25% of 4) = 5 pods at most');
    assert.equal(newReplicaSetSize(rolling(2, 0), 4, [old, rs('web-new', 1)], rs('web-new', 1)), 2);
    assert.equal(newReplicaSetSize(rolling(10, 0), 4, [rs('web-old', 0), rs('web-new', 1)], rs('web-new', 1)), 4);
    assert.equal(newReplicaSetSize(rolling(), 4, [rs('web-old', 4), rs('web-new', 1)], rs('web-new', 1)), 1, 'at the surge limit: no growth');
    assert.equal(newReplicaSetSize({ type: 'Recreate' }, 4, [old], undefined), 4);
  });

  it('rollout arithmetic shrinks old replica sets unhealthy first, then within maxUnavailable', () => {
    // replicas 4, maxUnavailable 1: 3 must stay available; new RS 1 pod not yet available.
    const sizes = oldReplicaSetSizes(rolling(1, 1), 4, rs('web-new', 1, 0), [rs('web-old', 4, 4)]);
    assert.deepEqual([...sizes], [['web-old', 3]]);
    // The oldest RS's unavailable pod goes first (it costs no availability), then one available pod of the next.
    const unhealthy = oldReplicaSetSizes(rolling(1, 1), 4, rs('web-new', 1, 1), [rs('web-a', 1, 0), rs('web-bb', 3, 3)]);
    assert.deepEqual([...unhealthy].sort(), [['web-a', 0], ['web-bb', 2]]);
    assert.equal(oldReplicaSetSizes(rolling(1, 0), 4, rs('web-new', 1, 0), [rs('web-old', 4, 4)]).size, 0, 'nothing may go while the new pod is unavailable');
  });

  it('rollout arithmetic scales active replica sets in proportion, the largest taking the leftover', () => {
    const sizes = proportionalSizes(rolling(3, 2), 15, [rs('web-new', 3, 3, { maxReplicas: 13 }), rs('web-old', 10, 10, { maxReplicas: 13 })], 13);
    // allowed 18, toAdd 5: old gets round(10·18/13)−10 = 4, new round(3·18/13)−3 = 1.
    assert.deepEqual(Object.fromEntries(sizes), { 'web-old': 14, 'web-new': 4 });
    const down = proportionalSizes(rolling(0, 1), 0, [rs('web-a', 2), rs('web-b', 1)], 3);
    assert.deepEqual(Object.fromEntries(down), { 'web-a': 0, 'web-b': 0 });
  });
});
