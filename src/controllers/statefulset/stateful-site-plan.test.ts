import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countStatefulSite, planLeftSite, planStatefulSite, type StatefulPodView, type StatefulSitePlanInput } from './stateful-site-plan.js';

const NEW = 'web-new';
const OLD = 'web-old';
const pod = (ordinal: number, state: Partial<StatefulPodView> = {}): StatefulPodView => ({
  ordinal,
  name: `web-a-${ordinal}`,
  uid: `uid-${ordinal}`,
  revision: NEW,
  phase: 'Running',
  ready: true,
  terminating: false,
  ...state,
});
const input = (pods: StatefulPodView[], extra: Partial<StatefulSitePlanInput> = {}): StatefulSitePlanInput => ({
  replicas: 3,
  orderedReady: true,
  rollingUpdate: true,
  partition: 0,
  updateRevision: NEW,
  pods,
  ...extra,
});
const describeActions = (plan: ReturnType<typeof planStatefulSite>): string[] => plan.actions.map((a) => (a.type === 'create' ? `create ${a.ordinal}` : `delete ${a.name} (${a.why})`));

describe('stateful site plan', () => {
  it('stateful site plan creates ordinal 0 first and waits for it under OrderedReady', () => {
    assert.deepEqual(describeActions(planStatefulSite(input([]))), ['create 0']);
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0, { phase: 'Pending', ready: false })]))), []);
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0, { ready: false })]))), [], 'Running but not Ready still blocks');
  });

  it('stateful site plan creates ordinal i once 0..i-1 are Running and Ready', () => {
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0)]))), ['create 1']);
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0), pod(1)]))), ['create 2']);
    const full = planStatefulSite(input([pod(0), pod(1), pod(2)]));
    assert.deepEqual(describeActions(full), []);
    assert.equal(full.settled, true);
  });

  it('stateful site plan creates every missing ordinal at once under Parallel', () => {
    const plan = planStatefulSite(input([pod(1, { phase: 'Pending', ready: false })], { orderedReady: false }));
    assert.deepEqual(describeActions(plan), ['create 0', 'create 2']);
    assert.equal(plan.settled, false);
  });

  it('stateful site plan scales down from the highest ordinal, one at a time when ordered', () => {
    const pods = [pod(0), pod(1), pod(2), pod(3)];
    assert.deepEqual(describeActions(planStatefulSite(input(pods, { replicas: 2 }))), ['delete web-a-3 (condemned)']);
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0), pod(1), pod(2), pod(3, { terminating: true })], { replicas: 2 }))), [], 'waits for the terminating pod');
    assert.deepEqual(describeActions(planStatefulSite(input(pods, { replicas: 2, orderedReady: false }))), ['delete web-a-3 (condemned)', 'delete web-a-2 (condemned)']);
  });

  it('stateful site plan does not scale down while a kept pod is unhealthy under OrderedReady', () => {
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0, { ready: false }), pod(1), pod(2)], { replicas: 1 }))), []);
  });

  it('stateful site plan replaces a failed pod', () => {
    assert.deepEqual(describeActions(planStatefulSite(input([pod(0, { phase: 'Failed', ready: false })]))), ['delete web-a-0 (failed)']);
  });

  it('stateful site plan rolls pods from the highest ordinal down, one at a time, waiting for Ready', () => {
    const old = [pod(0, { revision: OLD }), pod(1, { revision: OLD }), pod(2, { revision: OLD })];
    assert.deepEqual(describeActions(planStatefulSite(input(old))), ['delete web-a-2 (update)']);
    assert.deepEqual(describeActions(planStatefulSite(input([old[0] as StatefulPodView, old[1] as StatefulPodView, pod(2, { phase: 'Pending', ready: false })]))), [], 'waits for the new pod');
    assert.deepEqual(describeActions(planStatefulSite(input([old[0] as StatefulPodView, old[1] as StatefulPodView, pod(2)]))), ['delete web-a-1 (update)']);
  });

  it('stateful site plan leaves ordinals below the partition at their revision', () => {
    const pods = [pod(0, { revision: OLD }), pod(1, { revision: OLD }), pod(2)];
    const plan = planStatefulSite(input(pods, { partition: 2 }));
    assert.deepEqual(describeActions(plan), []);
    assert.equal(plan.settled, true);
    assert.deepEqual(describeActions(planStatefulSite(input(pods, { partition: 1 }))), ['delete web-a-1 (update)']);
  });

  it('stateful site plan never replaces pods itself under OnDelete', () => {
    const plan = planStatefulSite(input([pod(0, { revision: OLD }), pod(1, { revision: OLD }), pod(2, { revision: OLD })], { rollingUpdate: false }));
    assert.deepEqual(describeActions(plan), []);
    assert.equal(plan.settled, true);
  });

  it('stateful site plan removes every pod of a site the StatefulSet left', () => {
    const plan = planLeftSite([pod(0), pod(1, { terminating: true })]);
    assert.deepEqual(plan.actions.map((a) => (a.type === 'delete' ? a.name : a.type)), ['web-a-0']);
    assert.equal(plan.settled, false);
    assert.equal(planLeftSite([]).settled, true);
  });

  it('stateful site counts follow kube: ready needs Running, terminating pods are neither current nor updated', () => {
    const counts = countStatefulSite([pod(0, { revision: OLD }), pod(1), pod(2, { terminating: true }), pod(3, { phase: 'Pending', ready: false })], OLD, NEW);
    assert.deepEqual(counts, { replicas: 4, readyReplicas: 3, currentReplicas: 1, updatedReplicas: 2 });
  });
});
