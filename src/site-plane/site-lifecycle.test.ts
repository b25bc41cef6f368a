import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/object.js';
import type { SiteState } from '../controllers/placement/site-inventory.js';
import { nextSiteState, nodeReadyStatus, nodeWithReachability, observedHealth, podStatusNotReady } from './site-lifecycle.js';
import { siteNodeObject } from './site-node.js';

const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';
const T2 = '2025-01-01T00:02:00Z';
const node = (): KubeObject => siteNodeObject({ name: 'n0', cpu: '1', memory: '1Gi' }, { site: 's', type: 'CUSTOMER_EDGE', uid: 'u', now: T0 });
type Condition = Record<string, string>;
const conditions = (object: KubeObject): Condition[] => (object['status'] as { conditions: Condition[] }).conditions;

describe('site lifecycle', () => {
  it('site state follows the lease between ONLINE and FAILED and leaves operator states alone', () => {
    const table: Array<[SiteState | undefined, boolean, SiteState | undefined]> = [
      [undefined, true, 'ONLINE'],
      [undefined, false, undefined],
      ['WAITING_FOR_REGISTRATION', true, 'ONLINE'],
      ['WAITING_FOR_REGISTRATION', false, undefined],
      ['ONLINE', true, undefined],
      ['ONLINE', false, 'FAILED'],
      ['FAILED', false, undefined],
      ['FAILED', true, 'ONLINE'],
      ['DECOMMISSIONING', false, undefined],
      ['STANDBY', true, undefined],
      ['UPGRADING', false, undefined],
      ['PROVISIONING', true, undefined],
    ];
    for (const [current, heartbeating, next] of table) assert.equal(nextSiteState(current, heartbeating), next, `${String(current)} ${String(heartbeating)}`);
  });

  it('site node lost: every condition Unknown with the controller reason, unreachable taints', () => {
    const lost = nodeWithReachability(node(), false, T1);
    assert.ok(lost !== undefined);
    assert.equal(nodeReadyStatus(lost), 'Unknown');
    for (const c of conditions(lost)) {
      assert.deepEqual([c['status'], c['reason'], c['message'], c['lastHeartbeatTime'], c['lastTransitionTime']], ['Unknown', 'NodeStatusUnknown', 'Kubelet stopped posting node status.', T0, T1], c['type']);
    }
    assert.deepEqual((lost['spec'] as { taints: unknown }).taints, [
      { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: T1 },
    ]);
    assert.equal(nodeWithReachability(lost, false, T2), undefined, 'already lost: no write');
  });

  it('site node back: kubelet conditions again, taints gone, no write when already Ready', () => {
    const lost = nodeWithReachability(node(), false, T1);
    assert.ok(lost !== undefined);
    const back = nodeWithReachability(lost, true, T2);
    assert.ok(back !== undefined);
    assert.equal(nodeReadyStatus(back), 'True');
    assert.deepEqual(conditions(back).map((c) => [c['type'], c['status'], c['reason'], c['lastTransitionTime']]), [
      ['MemoryPressure', 'False', 'KubeletHasSufficientMemory', T2],
      ['DiskPressure', 'False', 'KubeletHasNoDiskPressure', T2],
      ['PIDPressure', 'False', 'KubeletHasSufficientPID', T2],
      ['Ready', 'True', 'KubeletReady', T2],
    ]);
    assert.deepEqual(back['spec'], {});
    assert.equal(nodeWithReachability(back, true, T2), undefined);
  });

  it('site pods not ready: Ready and ContainersReady False, finished pods untouched', () => {
    const running: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }, { type: 'Ready', status: 'True', lastTransitionTime: T0 }] } };
    const status = podStatusNotReady(running, T1);
    assert.deepEqual(status, {
      phase: 'Running',
      conditions: [
        { type: 'PodScheduled', status: 'True' },
        { type: 'Ready', status: 'False', lastTransitionTime: T1 },
        { type: 'ContainersReady', status: 'False', lastProbeTime: null, lastTransitionTime: T1 },
      ],
    });
    assert.equal(podStatusNotReady({ ...running, status }, T2), undefined);
    assert.equal(podStatusNotReady({ ...running, status: { phase: 'Succeeded', conditions: [{ type: 'Ready', status: 'True' }] } }, T1), undefined);
  });

  it('site health is timed from the controller\'s start: no site is lost within the grace period after it, even without a lease key', () => {
    const started = 1_000_000;
    const grace = 40_000;
    assert.deepEqual(observedHealth(true, started, started, grace), { heartbeating: true });
    assert.deepEqual(observedHealth(false, started, started, grace), { recheckAfterMs: 40_000 }, 'no lease key at start: look again when the grace ends');
    assert.deepEqual(observedHealth(false, started, started + 39_000, grace), { recheckAfterMs: 1000 });
    assert.deepEqual(observedHealth(false, started, started + 40_000, grace), { heartbeating: false });
    assert.deepEqual(observedHealth(true, started, started + 90_000, grace), { heartbeating: true });
  });
});
