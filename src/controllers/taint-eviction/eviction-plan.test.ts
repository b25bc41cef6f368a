import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Toleration } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { nodeWithReachability } from '../../site-plane/site-lifecycle.js';
import { siteNode } from '../testing/fake-sites.js';
import { offlineEvictionToleration } from '../controller-kit/offline-eviction.js';
import { choosesEviction, planEviction } from './eviction-plan.js';

const WENT_OFFLINE = '2026-12-08T02:00:00Z';
const offlineNode = nodeWithReachability(siteNode('ce-lyon', 'n1'), false, WENT_OFFLINE);
const at = (seconds: number): Date => new Date(Date.parse(WENT_OFFLINE) + seconds * 1000);
const pod = (tolerations: Toleration[] = [], extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', ...extra },
  spec: { nodeName: 'ce-lyon-n1', containers: [{ name: 'c', image: 'x' }], tolerations },
});
const unreachableFor = (seconds?: number): Toleration => ({ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) });

describe('planEviction (kube\'s NoExecuteTaintManager, opt-in)', () => {
  it('never evicts a pod that did not ask: no toleration (kube would at once), or one without tolerationSeconds', () => {
    assert.deepEqual(planEviction(pod(), offlineNode, at(100_000)), { action: 'keep' });
    assert.deepEqual(planEviction(pod([unreachableFor()]), offlineNode, at(100_000)), { action: 'keep' });
    assert.equal(choosesEviction(pod()), false);
  });

  it('evicts a pod tolerationSeconds after the taint was added, the least of its tolerations counting', () => {
    assert.deepEqual(planEviction(pod([unreachableFor(60)]), offlineNode, at(20)), { action: 'wait', afterMs: 40_000 });
    assert.deepEqual(planEviction(pod([unreachableFor(60)]), offlineNode, at(60)), { action: 'evict' });
    assert.deepEqual(planEviction(pod([unreachableFor(600), { operator: 'Exists', tolerationSeconds: 30 }]), offlineNode, at(10)), { action: 'wait', afterMs: 20_000 });
    assert.deepEqual(planEviction(pod([unreachableFor(0)]), offlineNode, at(0)), { action: 'evict' }, '0 or less: at once');
    assert.equal(choosesEviction(pod([unreachableFor(60)])), true);
  });

  it('keeps pods of a reachable node, pods being deleted and finished pods', () => {
    const back = nodeWithReachability(offlineNode ?? siteNode('ce-lyon', 'n1'), true, WENT_OFFLINE);
    assert.deepEqual(planEviction(pod([unreachableFor(1)]), back, at(100)), { action: 'keep' });
    assert.deepEqual(planEviction(pod([unreachableFor(1)], { deletionTimestamp: WENT_OFFLINE }), offlineNode, at(100)), { action: 'keep' });
    assert.deepEqual(planEviction({ ...pod([unreachableFor(1)]), status: { phase: 'Succeeded' } }, offlineNode, at(100)), { action: 'keep' });
    assert.deepEqual(planEviction(pod([unreachableFor(1)]), undefined, at(100)), { action: 'keep' }, 'a node the inventory does not know');
  });

  it('takes the workload annotation svc.io/offline-eviction-seconds for a pod with no toleration of its own for the taint', () => {
    const workload: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', annotations: { 'svc.io/offline-eviction-seconds': '300' } } };
    const annotated = offlineEvictionToleration(workload);
    assert.deepEqual(annotated, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    assert.deepEqual(planEviction(pod(), offlineNode, at(299), annotated), { action: 'wait', afterMs: 1000 });
    assert.deepEqual(planEviction(pod(), offlineNode, at(300), annotated), { action: 'evict' });
    assert.deepEqual(planEviction(pod([unreachableFor()]), offlineNode, at(300), annotated), { action: 'keep' }, "the pod's own toleration comes first");
    assert.equal(offlineEvictionToleration({ ...workload, metadata: { name: 'web', annotations: { 'svc.io/offline-eviction-seconds': 'soon' } } }), undefined);
  });

  it('counts time only from when the controller started observing, when that is later than the taint (a control-plane outage or a leader change)', () => {
    const started = at(250);
    assert.deepEqual(planEviction(pod([unreachableFor(60)]), offlineNode, at(300), undefined, started), { action: 'wait', afterMs: 10_000 });
    assert.deepEqual(planEviction(pod([unreachableFor(60)]), offlineNode, at(310), undefined, started), { action: 'evict' });
    assert.deepEqual(planEviction(pod([unreachableFor(60)]), offlineNode, at(60), undefined, at(-5)), { action: 'evict' }, 'an earlier start changes nothing');
  });
});
