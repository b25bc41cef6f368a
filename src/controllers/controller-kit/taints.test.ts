import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { toleratesTaint, untoleratedTaintReason, type Taint } from './taints.js';

const unreachable: Taint = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-12-08T02:00:00Z' };
const node = (taints: Taint[]): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' }, spec: { taints } });

describe('taints and tolerations (kube\'s ToleratesTaint)', () => {
  it('matches effect, key, operator and value as kube does', () => {
    assert.equal(toleratesTaint({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }, unreachable), true);
    assert.equal(toleratesTaint({ operator: 'Exists' }, unreachable), true, 'an empty key with Exists tolerates everything');
    assert.equal(toleratesTaint({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoSchedule' }, unreachable), false, 'another effect');
    assert.equal(toleratesTaint({ key: 'node.kubernetes.io/unreachable' }, unreachable), true, 'Equal by default, both values empty');
    assert.equal(toleratesTaint({ key: 'node.kubernetes.io/unreachable', value: 'x' }, unreachable), false);
    assert.equal(toleratesTaint({ key: 'other', operator: 'Exists' }, unreachable), false);
  });

  it('names the first NoSchedule or NoExecute taint the pod does not tolerate, in the scheduler\'s words', () => {
    const offline = node([{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }, unreachable]);
    assert.equal(untoleratedTaintReason(offline, []), "node(s) had taint {node.kubernetes.io/unreachable: }, that the pod didn't tolerate");
    assert.equal(untoleratedTaintReason(offline, [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }]), undefined);
    assert.equal(untoleratedTaintReason(node([{ key: 'k', value: 'v', effect: 'PreferNoSchedule' }]), []), undefined, 'PreferNoSchedule does not filter');
  });
});
