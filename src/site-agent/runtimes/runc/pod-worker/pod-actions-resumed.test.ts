import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodSpec } from '../../../../api/pod-spec-types.js';
import { SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';
import { nextRestartDelay, type ContainerRecord, type PodRecord } from '../../kubelet/index.js';
import { computePodActions, type PodActions, type PodSnapshot } from './pod-actions.js';

const NOW = 1_000_000;
const SIDECAR = SIDECAR_CONTAINER_NAME;
const LINK = NOW - 2000;

const waiting = (name: string): ContainerRecord => ({ name, image: 'i', imageID: '', restartCount: 0, current: { kind: 'waiting', reason: 'PodInitializing' }, ready: false, started: false });
const running = (name: string, ready: boolean, startedAt = NOW - 5000): ContainerRecord => ({ ...waiting(name), imageID: 'host://', current: { kind: 'running', startedAt, containerID: `runc://${name}` }, ready, started: true });
const exited = (name: string, startedAt: number): ContainerRecord => ({
  ...waiting(name),
  restartCount: 1,
  current: { kind: 'terminated', termination: { exitCode: 0, reason: 'Completed', startedAt, finishedAt: NOW - 500, containerID: 'runc://x' } },
});

const podSpec: PodSpec = { containers: [{ name: SIDECAR, image: 'i' }, { name: 'app', image: 'i' }] };
const record = (containers: ContainerRecord[], initializedAt?: number): PodRecord => ({
  uid: 'u1', name: 'web', namespace: 'default', hostIP: '10.244.0.1', qosClass: 'BestEffort', restartPolicy: 'Always', scheduledAt: '2026-01-01T00:00:00Z', readyChangedAt: 0, initContainers: [], containers,
  ...(initializedAt === undefined ? {} : { initializedAt }),
});
const snapshot = (pod: PodRecord, parts: Partial<Omit<PodSnapshot, 'record'>>): PodSnapshot => ({ record: pod, sandbox: true, running: new Set(), backoff: new Map(), probeFailures: new Map(), unprobed: new Set(), ...parts });
const started = (actions: PodActions): string[] => actions.start.map((s) => s.name);
const killed = (actions: PodActions): string[] => actions.kill.map((k) => `${k.name}:${k.reason}`);

describe('computePodActions: a pod resumed after a machine restart (its workload ran on the site)', () => {
  it('starts its app containers once the sidecar runs, without waiting for READY; a brand-new pod still waits', () => {
    const pod = record([running(SIDECAR, false), waiting('app')]);
    const parts = { running: new Set([SIDECAR]), sidecar: { state: 'INITIALIZING' } };
    const resumed = computePodActions(podSpec, snapshot(pod, { ...parts, workloadStarted: true }), NOW);
    assert.deepEqual(started(resumed), ['app']);
    assert.equal(resumed.initialized, true);
    assert.deepEqual(started(computePodActions(podSpec, snapshot(pod, { ...parts, workloadStarted: false }), NOW)), [], 'a brand-new pod waits for READY');
  });

  it('starts the sidecar first: nothing else while it does not run yet', () => {
    const pod = record([waiting(SIDECAR), waiting('app')]);
    assert.deepEqual(started(computePodActions(podSpec, snapshot(pod, { workloadStarted: true }), NOW)), [SIDECAR]);
  });

  it('once Initialized, its app containers restart even while the sidecar waits out a back-off', () => {
    const pod = record([exited(SIDECAR, NOW - 60_000), exited('app', NOW - 60_000)], NOW - 120_000);
    const backoff = new Map([[SIDECAR, { delayMs: 40_000, updatedAt: NOW - 60_000 }]]);
    const actions = computePodActions(podSpec, snapshot(pod, { workloadStarted: true, backoff, sidecar: { state: 'HALTED', reason: 'RETRY_BUDGET_EXHAUSTED' } }), NOW);
    assert.deepEqual(started(actions), ['app']);
    assert.deepEqual(actions.backOff.map((b) => b.name), [SIDECAR]);
  });
});

describe('computePodActions: a sidecar with no identity', () => {
  it('is restarted when it halted for its retry budget (whatever the pod), not when its identity expired', () => {
    const pod = record([running(SIDECAR, false), running('app', true)], NOW - 120_000);
    const parts = { running: new Set([SIDECAR, 'app']) };
    for (const workloadStarted of [true, false]) {
      const actions = computePodActions(podSpec, snapshot(pod, { ...parts, workloadStarted, sidecar: { state: 'HALTED', reason: 'RETRY_BUDGET_EXHAUSTED: connect ECONNREFUSED' } }), NOW);
      assert.deepEqual(killed(actions), [`${SIDECAR}:SidecarHalted`]);
      assert.deepEqual(started(actions), []);
    }
    assert.deepEqual(killed(computePodActions(podSpec, snapshot(pod, { ...parts, sidecar: { state: 'HALTED', reason: 'IDENTITY_EXPIRED' } }), NOW)), []);
  });

  it('halted and exited, restarts after its crash back-off (at once the first time)', () => {
    const pod = record([exited(SIDECAR, NOW - 300_000), running('app', true)], NOW - 400_000);
    const halted = { workloadStarted: true, running: new Set(['app']), sidecar: { state: 'HALTED', reason: 'RETRY_BUDGET_EXHAUSTED' } };
    assert.deepEqual(started(computePodActions(podSpec, snapshot(pod, halted), NOW)), [SIDECAR]);
    const backoff = new Map([[SIDECAR, nextRestartDelay({ delayMs: 10_000, updatedAt: NOW - 300_000 }, NOW - 300_000)]]);
    const held = computePodActions(podSpec, snapshot(pod, { ...halted, backoff }), NOW);
    assert.deepEqual(started(held), []);
    assert.equal(held.wakeAt, NOW - 500 + 20_000);
  });

  it('when the control plane lists the pods again: restarted at once if it started before, back-off skipped; left alone if it holds an identity or started after', () => {
    const before = record([running(SIDECAR, true, LINK - 60_000), running('app', true)], NOW - 120_000);
    const parts = { workloadStarted: true, running: new Set([SIDECAR, 'app']), linkReturnedAt: LINK };
    assert.deepEqual(killed(computePodActions(podSpec, snapshot(before, { ...parts, sidecar: { state: 'INITIALIZING' } }), NOW)), [`${SIDECAR}:LinkReturned`]);
    assert.deepEqual(killed(computePodActions(podSpec, snapshot(before, { ...parts, sidecar: { state: 'READY' } }), NOW)), []);
    const after = record([running(SIDECAR, true, LINK + 500), running('app', true)], NOW - 120_000);
    assert.deepEqual(killed(computePodActions(podSpec, snapshot(after, { ...parts, sidecar: { state: 'INITIALIZING' } }), NOW)), []);
    const inBackOff = record([exited(SIDECAR, LINK - 60_000), running('app', true)], NOW - 120_000);
    const backoff = new Map([[SIDECAR, { delayMs: 300_000, updatedAt: NOW - 1000 }]]);
    const stopped = { ...parts, running: new Set(['app']), backoff, sidecar: { state: 'HALTED', reason: 'RETRY_BUDGET_EXHAUSTED' } };
    assert.deepEqual(started(computePodActions(podSpec, snapshot(inBackOff, stopped), NOW)), [SIDECAR]);
    assert.deepEqual(started(computePodActions(podSpec, snapshot(inBackOff, { ...stopped, linkReturnedAt: undefined }), NOW)), [], 'no link news: its back-off');
  });
});
