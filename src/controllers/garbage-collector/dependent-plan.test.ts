import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';
import { blocksOwner, ownerState, planDependent, unblocked, withoutOwners, type ClassifiedOwner, type OwnerState } from './dependent-plan.js';

const ref = (uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'apps/v1', kind: 'Deployment', name: `n-${uid}`, uid, ...extra });
const owners = (...states: OwnerState[]): ClassifiedOwner[] => states.map((state, i) => ({ ref: ref(`u${i}`), state }));
const facts = { finalizers: [], hasDependents: false, dependentDeletingDependents: false };
const object = (uid: string, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', uid, ...meta } });

describe('dependent plan', () => {
  it('owner state is dangling when absent or replaced, waiting when deleting in the foreground, else solid', () => {
    assert.equal(ownerState(ref('a'), undefined), 'dangling');
    assert.equal(ownerState(ref('a'), object('b')), 'dangling');
    assert.equal(ownerState(ref('a'), object('a')), 'solid');
    assert.equal(ownerState(ref('a'), object('a', { deletionTimestamp: '2020-01-01T00:00:00Z', finalizers: ['foregroundDeletion'] })), 'waiting');
    assert.equal(ownerState(ref('a'), object('a', { deletionTimestamp: '2020-01-01T00:00:00Z', finalizers: ['orphan'] })), 'solid', 'an orphaning owner keeps its dependents');
  });

  it('dependent plan keeps an object with a solid or unresolvable owner, dropping the references to gone owners', () => {
    assert.deepEqual(planDependent({ ...facts, owners: owners('solid') }), { action: 'keep' });
    assert.deepEqual(planDependent({ ...facts, owners: [] }), { action: 'keep' });
    assert.deepEqual(planDependent({ ...facts, owners: owners('solid', 'dangling', 'waiting') }), { action: 'removeOwners', uids: ['u1', 'u2'] });
    assert.deepEqual(planDependent({ ...facts, owners: owners('unresolvable', 'dangling') }), { action: 'removeOwners', uids: ['u1'] });
  });

  it('dependent plan deletes an object without owners with the policy of its own finalizers', () => {
    assert.deepEqual(planDependent({ ...facts, owners: owners('dangling', 'dangling') }), { action: 'delete', policy: 'Background', unblock: false });
    assert.deepEqual(planDependent({ ...facts, owners: owners('dangling'), finalizers: ['orphan'] }), { action: 'delete', policy: 'Orphan', unblock: false });
    assert.deepEqual(planDependent({ ...facts, owners: owners('waiting'), finalizers: ['foregroundDeletion'] }), { action: 'delete', policy: 'Foreground', unblock: false });
    assert.deepEqual(planDependent({ ...facts, owners: owners('waiting') }), { action: 'delete', policy: 'Background', unblock: false }, 'no dependents of its own: nothing to wait for');
  });

  it('dependent plan deletes a dependent of a waiting owner that has dependents in the foreground, unblocking to break cycles', () => {
    assert.deepEqual(planDependent({ ...facts, owners: owners('waiting', 'dangling'), hasDependents: true }), { action: 'delete', policy: 'Foreground', unblock: false });
    assert.deepEqual(planDependent({ ...facts, owners: owners('waiting'), hasDependents: true, dependentDeletingDependents: true }), { action: 'delete', policy: 'Foreground', unblock: true });
  });

  it('dependent plan helpers drop, unblock and find blocking references', () => {
    const refs = [ref('a', { blockOwnerDeletion: true }), ref('b')];
    assert.deepEqual(withoutOwners(refs, ['a']), [ref('b')]);
    assert.deepEqual(unblocked(refs), [ref('a', { blockOwnerDeletion: false }), ref('b')]);
    assert.equal(blocksOwner(object('x', { ownerReferences: refs }), 'a'), true);
    assert.equal(blocksOwner(object('x', { ownerReferences: refs }), 'b'), false);
  });
});
