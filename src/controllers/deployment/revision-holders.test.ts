import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../vk8s/object.js';
import { newReplicaSetAnnotations, withRevisionMark } from './deployment-annotations.js';
import { RevisionHolders } from './revision-holders.js';

const KUBE = 'deployment.kubernetes.io/revision';
const PLATFORM = 'svc.io/revision';

function rs(name: string, created: string, annotations: Record<string, string>, deleting = false): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, creationTimestamp: `2025-01-01T00:00:0${created}Z`, annotations, ...(deleting ? { deletionTimestamp: '2025-01-01T00:01:00Z' } : {}) } };
}
const own = (r: KubeObject): number => Number(r.metadata.annotations?.[PLATFORM] ?? r.metadata.annotations?.[KUBE] ?? 0);

describe('revision holders', () => {
  it('revision holders pick the oldest ReplicaSet of each revision when none carries kube\'s annotation', () => {
    const holders = new RevisionHolders([rs('b1', '2', { [PLATFORM]: '1' }), rs('a1', '1', { [PLATFORM]: '1' }), rs('c2', '3', { [PLATFORM]: '2' }), rs('d2', '3', { [PLATFORM]: '2' })], own);
    assert.deepEqual(['a1', 'b1', 'c2', 'd2'].map((n) => holders.holds(n)), [true, false, true, false]);
  });

  it('revision holders keep the ReplicaSet that carries kube\'s annotation, and choose again when it is being deleted', () => {
    const marked = rs('b1', '2', { [PLATFORM]: '1', [KUBE]: '1' });
    assert.equal(new RevisionHolders([rs('a1', '1', { [PLATFORM]: '1' }), marked], own).holds('b1'), true);
    const leaving = rs('b1', '2', { [PLATFORM]: '1', [KUBE]: '1' }, true);
    const again = new RevisionHolders([rs('a1', '1', { [PLATFORM]: '1' }), leaving, rs('c1', '3', { [PLATFORM]: '1' })], own);
    assert.deepEqual(['a1', 'b1', 'c1'].map((n) => again.holds(n)), [true, false, false]);
  });

  it('revision holders use the revision a ReplicaSet takes in this sync (a rollback raises it)', () => {
    const back = rs('a1', '1', { [PLATFORM]: '1', [KUBE]: '1' });
    const holders = new RevisionHolders([back, rs('b1', '2', { [PLATFORM]: '1' }), rs('c2', '3', { [PLATFORM]: '2', [KUBE]: '2' })], (r) => (r === back ? 3 : own(r)));
    assert.deepEqual(['a1', 'b1', 'c2'].map((n) => holders.holds(n)), [true, true, true], 'a1 holds 3, b1 now alone holds 1');
  });

  it('revision holders give a new revision to the first ReplicaSet created for it, and no other', () => {
    const holders = new RevisionHolders([rs('a1', '1', { [PLATFORM]: '1', [KUBE]: '1' })], own);
    assert.equal(holders.claim(2, 'x2'), true);
    assert.equal(holders.claim(2, 'y2'), false);
    assert.equal(holders.claim(2, 'x2'), true, 'asking again answers the same');
    assert.equal(holders.claim(1, 'z1'), false, 'revision 1 has its holder');
  });
});

describe('revision annotations', () => {
  it('revision mark keeps the revision in the platform annotation and kube\'s only on the holder', () => {
    const legacy = { [KUBE]: '4', other: 'x' };
    assert.deepEqual(withRevisionMark(legacy, false), { [PLATFORM]: '4', other: 'x' });
    assert.deepEqual(withRevisionMark(legacy, true), { [PLATFORM]: '4', [KUBE]: '4', other: 'x' });
    assert.deepEqual(withRevisionMark({ [PLATFORM]: '5', [KUBE]: '4' }, true), { [PLATFORM]: '5', [KUBE]: '5' });
    assert.deepEqual(withRevisionMark({ a: 'b' }, true), { a: 'b' }, 'no revision, nothing to mark');
  });

  it('new ReplicaSet annotations raise the revision with its history, leave out the platform\'s Deployment-only annotations', () => {
    const current = { [PLATFORM]: '1', [KUBE]: '1' };
    const deployment = { team: 'a', [PLATFORM]: '9', 'svc.io/site-status': '{}' };
    assert.deepEqual(newReplicaSetAnnotations(current, deployment, 3, 'svc.io/site-status', false), { team: 'a', [PLATFORM]: '3', 'deployment.kubernetes.io/revision-history': '1' });
    assert.deepEqual(newReplicaSetAnnotations({}, {}, 2, 'svc.io/site-status', true), { [PLATFORM]: '2', [KUBE]: '2' });
  });
});
