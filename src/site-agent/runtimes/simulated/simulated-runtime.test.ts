import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../../observability/logger.js';
import type { KubeObject } from '../../../apimachinery/object.js';
import { nodeDirectoryFor } from '../../node-directory.js';
import { podKeyOf } from '../../pod-key.js';
import type { PodRef, PodStatusItem } from '../../../site-api/site-api-types.js';
import { siteSpecsFor } from '../../site-specs.js';
import { fakeTimers } from '../../../common/testing/fake-timers.js';
import { SimulatedRuntime } from './simulated-runtime.js';

const logger = createLogger({ level: 'silent' });

/** `status` as the node lifecycle controller leaves it when the site stops heartbeating: Ready and ContainersReady False, containers untouched. */
function markedNotReady(status: Record<string, unknown>): Record<string, unknown> {
  const conditions = (status['conditions'] as Array<{ type: string }>).map((c) => (c.type === 'Ready' || c.type === 'ContainersReady' ? { ...c, status: 'False', lastTransitionTime: '2020-01-01T00:00:30Z' } : c));
  return { ...status, conditions };
}
const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk' };
const sites = siteSpecsFor({ name: 'edge', type: 'CUSTOMER_EDGE', labels: {}, nodes: 2, cpu: '4', memory: '8Gi', simulateSites: 1000 });

function pod(name: string, node: string, uid = `uid-${name}`, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop', uid, ...extra }, spec: { nodeName: node, containers: [{ name: 'app', image: 'nginx' }] } };
}

function setup(): { runtime: SimulatedRuntime; timers: ReturnType<typeof fakeTimers>; statuses: PodStatusItem[]; terminated: PodRef[] } {
  const timers = fakeTimers(Date.UTC(2020, 0, 1));
  const statuses: PodStatusItem[] = [];
  const terminated: PodRef[] = [];
  const runtime = new SimulatedRuntime({
    sink: { status: (_key, item) => statuses.push(item), terminated: (_key, ref) => terminated.push(ref) },
    timers,
    nodes: nodeDirectoryFor('edge', sites),
    logger,
    sim: { startMs: 1000 },
    random: () => 0.5,
  });
  return { runtime, timers, statuses, terminated };
}

describe('SimulatedRuntime', () => {
  it('simulated runtime runs a thousand sites\' pods on one timer', () => {
    const { runtime, timers, statuses } = setup();
    for (let i = 0; i < 1000; i++) runtime.apply(cluster, pod(`p${i}`, `edge-${String(i).padStart(3, '0')}-node-${i % 2}`));
    assert.equal(runtime.size, 1000);
    assert.equal(statuses.length, 1000);
    assert.equal(timers.pending().length, 1);
    timers.advance(1000);
    assert.equal(statuses.length, 2000);
    assert.ok(statuses.slice(1000).every((s) => s.status['phase'] === 'Running'));
    const ips = new Set(statuses.slice(1000).map((s) => s.status['podIP']));
    assert.equal(ips.size, 1000, 'pod IPs are distinct');
    assert.equal(timers.pending().length, 0);
  });

  it('simulated runtime ignores pods on nodes it does not run and repeated events', () => {
    const { runtime, statuses } = setup();
    runtime.apply(cluster, pod('stray', 'elsewhere-node-0'));
    assert.equal(runtime.size, 0);
    runtime.apply(cluster, pod('a', 'edge-000-node-0'));
    runtime.apply(cluster, pod('a', 'edge-000-node-0'));
    assert.equal(statuses.length, 1);
  });

  it('simulated runtime treats a new uid under the same name as a new pod', () => {
    const { runtime, timers, statuses } = setup();
    runtime.apply(cluster, pod('db-0', 'edge-001-node-0', 'one'));
    timers.advance(1000);
    runtime.apply(cluster, pod('db-0', 'edge-001-node-0', 'two'));
    assert.equal(statuses.length, 3);
    assert.equal(statuses[2]?.uid, 'two');
    assert.equal(statuses[2]?.status['phase'], 'Pending');
    assert.equal(runtime.stateOf(podKeyOf(cluster, 'db-0'))?.facts.uid, 'two');
    runtime.remove(podKeyOf(cluster, 'db-0'), 'one');
    assert.equal(runtime.size, 1, 'removing the old uid leaves the new pod');
  });

  it('simulated runtime stops a pod marked for deletion and reports it terminated', () => {
    const { runtime, timers, terminated } = setup();
    runtime.apply(cluster, pod('a', 'edge-002-node-1'));
    timers.advance(1000);
    runtime.apply(cluster, pod('a', 'edge-002-node-1', 'uid-a', { deletionTimestamp: '2020-01-01T00:00:01Z', deletionGracePeriodSeconds: 30 }));
    assert.equal(terminated.length, 0);
    timers.advance(500);
    assert.deepEqual(terminated, [{ cluster, name: 'a', uid: 'uid-a' }]);
    runtime.remove(podKeyOf(cluster, 'a'));
    assert.equal(runtime.size, 0);
  });

  it('simulated runtime adopts pods a previous agent ran, without reporting them again', () => {
    const first = setup();
    first.runtime.apply(cluster, pod('web', 'edge-003-node-0'));
    first.timers.advance(1000);
    const latest = (name: string): Record<string, unknown> => [...first.statuses].reverse().find((s) => s.name === name)?.status ?? {};
    const restarted = setup();
    restarted.runtime.apply(cluster, { ...pod('web', 'edge-003-node-0'), status: latest('web') });
    restarted.runtime.apply(cluster, { ...pod('fresh', 'edge-003-node-0'), status: { phase: 'Pending' } });
    assert.deepEqual(restarted.statuses.map((s) => s.name), ['fresh'], 'only the pod that never ran starts');
    assert.equal(restarted.runtime.stateOf(podKeyOf(cluster, 'web'))?.stage.kind, 'Ready');
    assert.equal(restarted.runtime.stateOf(podKeyOf(cluster, 'web'))?.facts.podIP, latest('web')['podIP']);
    restarted.runtime.apply(cluster, { ...pod('web', 'edge-003-node-0', 'uid-web', { deletionTimestamp: '2020-01-01T00:00:09Z', deletionGracePeriodSeconds: 0 }), status: latest('web') });
    assert.deepEqual(restarted.terminated.map((t) => t.name), ['web']);
  });
  it('simulated runtime reports a ready pod the control plane marked not Ready again, and not its own older statuses', () => {
    const { runtime, timers, statuses } = setup();
    runtime.apply(cluster, pod('web', 'edge-003-node-0'));
    timers.advance(1000);
    const [starting, running] = statuses.map((s) => s.status);
    assert.equal(running?.['phase'], 'Running');
    runtime.apply(cluster, { ...pod('web', 'edge-003-node-0'), status: starting });
    assert.equal(statuses.length, 2, 'a status the runtime reported earlier (late in the watch) is not a reason to report');
    timers.advance(60_000);
    runtime.apply(cluster, { ...pod('web', 'edge-003-node-0'), status: markedNotReady(running ?? {}) });
    assert.equal(statuses.length, 3);
    const again = statuses[2]?.status as { conditions: Array<{ type: string; status: string; lastTransitionTime: string }> };
    assert.deepEqual(again.conditions.filter((c) => c.type.endsWith('Ready')).map((c) => [c.type, c.status, c.lastTransitionTime]), [
      ['Ready', 'True', '2020-01-01T00:01:01Z'],
      ['ContainersReady', 'True', '2020-01-01T00:01:01Z'],
    ]);
    runtime.apply(cluster, { ...pod('web', 'edge-003-node-0'), status: again });
    assert.equal(statuses.length, 3, 'the status back: nothing more to say');
  });

  it('simulated runtime adopts a pod the control plane marked not Ready and reports it ready', () => {
    const first = setup();
    first.runtime.apply(cluster, pod('web', 'edge-003-node-0'));
    first.timers.advance(1000);
    const restarted = setup();
    restarted.runtime.apply(cluster, { ...pod('web', 'edge-003-node-0'), status: markedNotReady(first.statuses[1]?.status ?? {}) });
    assert.equal(restarted.runtime.stateOf(podKeyOf(cluster, 'web'))?.stage.kind, 'Ready');
    const reported = restarted.statuses.map((s) => (s.status as { conditions: Array<{ type: string; status: string }> }).conditions.find((c) => c.type === 'Ready')?.status);
    assert.deepEqual(reported, ['True']);
  });
});
