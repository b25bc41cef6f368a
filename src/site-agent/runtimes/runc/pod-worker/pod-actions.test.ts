import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';
import { nextRestartDelay, type ContainerRecord, type ContainerTermination, type PodRecord, type RestartBackoff } from '../../kubelet/index.js';
import { computePodActions, type PodActions, type PodSnapshot } from './pod-actions.js';
import { computeTermination } from './termination-actions.js';
import { nextPhase, type WorkerPhase } from './worker-phase.js';

const NOW = 1_000_000;
const SIDECAR = SIDECAR_CONTAINER_NAME;

const waiting = (name: string): ContainerRecord => ({ name, image: 'i', imageID: '', restartCount: 0, current: { kind: 'waiting', reason: 'PodInitializing' }, ready: false, started: false });
const running = (name: string, ready = true): ContainerRecord => ({ name, image: 'i', imageID: 'host://', restartCount: 0, current: { kind: 'running', startedAt: NOW - 5000, containerID: `runc://${name}` }, ready, started: true });
const ended = (exitCode: number, finishedAt = NOW - 1000): ContainerTermination => ({ exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: finishedAt - 1000, finishedAt, containerID: 'runc://x' });
const exited = (name: string, exitCode: number, finishedAt?: number, restartCount = 0): ContainerRecord => ({ ...waiting(name), restartCount, current: { kind: 'terminated', termination: ended(exitCode, finishedAt) }, imageID: 'host://' });

function spec(containers: string[], initContainers: string[] = [], extra: Partial<PodSpec> = {}): PodSpec {
  const container = (name: string): Container => ({ name, image: 'i' });
  return { containers: containers.map(container), initContainers: initContainers.map(container), ...extra };
}

function record(containers: ContainerRecord[], initContainers: ContainerRecord[] = [], extra: Partial<PodRecord> = {}): PodRecord {
  return { uid: 'u1', name: 'web', namespace: 'default', hostIP: '10.244.0.1', qosClass: 'BestEffort', restartPolicy: 'Always', scheduledAt: '2026-01-01T00:00:00Z', readyChangedAt: 0, initContainers, containers, initializedAt: NOW - 10_000, ...extra };
}

function snapshot(pod: PodRecord, parts: Partial<Omit<PodSnapshot, 'record'>> = {}): PodSnapshot {
  return { record: pod, sandbox: true, running: new Set(), backoff: new Map(), probeFailures: new Map(), unprobed: new Set(), ...parts };
}

const started = (actions: PodActions): string[] => actions.start.map((s) => s.name);

describe('computePodActions: a new pod', () => {
  it('makes the sandbox, sets up volumes and starts the sidecar alone: everything else waits for it to be READY', () => {
    const pod = record([waiting(SIDECAR), waiting('app')], [waiting('init')], { initializedAt: undefined });
    const actions = computePodActions(spec([SIDECAR, 'app'], ['init']), snapshot(pod, { sandbox: false }), NOW);
    assert.equal(actions.createSandbox, true);
    assert.equal(actions.setUpVolumes, true);
    assert.deepEqual(started(actions), [SIDECAR]);
    assert.equal(actions.initialized, false);
    assert.equal(actions.wakeAt, undefined);
  });

  it('starts nothing while the sidecar runs but is not READY', () => {
    const pod = record([running(SIDECAR, false), waiting('app')], [], { initializedAt: undefined });
    assert.deepEqual(started(computePodActions(spec([SIDECAR, 'app']), snapshot(pod, { running: new Set([SIDECAR]) }), NOW)), []);
  });

  it('without init containers, a READY sidecar lets the pod be Initialized and its app containers start together', () => {
    const pod = record([running(SIDECAR), waiting('a'), waiting('b')], [], { initializedAt: undefined });
    const actions = computePodActions(spec([SIDECAR, 'a', 'b']), snapshot(pod, { running: new Set([SIDECAR]) }), NOW);
    assert.equal(actions.initialized, true);
    assert.deepEqual(actions.start, [{ name: 'a', init: false }, { name: 'b', init: false }]);
    assert.equal(actions.createSandbox, false);
  });
});

describe('computePodActions: init containers', () => {
  const podSpec = spec(['app'], ['one', 'two']);

  it('runs them one at a time, in order, and waits while one runs', () => {
    const first = computePodActions(podSpec, snapshot(record([waiting('app')], [waiting('one'), waiting('two')], { initializedAt: undefined })), NOW);
    assert.deepEqual(first.start, [{ name: 'one', init: true }]);
    const during = computePodActions(podSpec, snapshot(record([waiting('app')], [running('one'), waiting('two')], { initializedAt: undefined }), { running: new Set(['one']) }), NOW);
    assert.deepEqual(started(during), []);
    const second = computePodActions(podSpec, snapshot(record([waiting('app')], [exited('one', 0), waiting('two')], { initializedAt: undefined })), NOW);
    assert.deepEqual(second.start, [{ name: 'two', init: true }]);
    assert.equal(second.initialized, false);
  });

  it('once all succeeded the pod is Initialized and the app containers start in the same sync', () => {
    const actions = computePodActions(podSpec, snapshot(record([waiting('app')], [exited('one', 0), exited('two', 0)], { initializedAt: undefined })), NOW);
    assert.equal(actions.initialized, true);
    assert.deepEqual(started(actions), ['app']);
  });

  it('a failed init container restarts (after its back-off) under Always and OnFailure, and ends the pod under Never', () => {
    const failed = record([waiting('app')], [exited('one', 1), waiting('two')], { initializedAt: undefined });
    assert.deepEqual(started(computePodActions(podSpec, snapshot(failed), NOW)), ['one'], 'its first restart is at once');
    const never = computePodActions({ ...podSpec, restartPolicy: 'Never' }, snapshot({ ...failed, restartPolicy: 'Never' }), NOW);
    assert.deepEqual(started(never), []);
    assert.equal(never.initialized, false);
  });

  it('an init container that failed under Never stops the sidecar: the workload is over', () => {
    const pod = record([running(SIDECAR), waiting('app')], [exited('one', 1)], { initializedAt: undefined, restartPolicy: 'Never' });
    const actions = computePodActions({ ...spec([SIDECAR, 'app'], ['one']), restartPolicy: 'Never' }, snapshot(pod, { running: new Set([SIDECAR]) }), NOW);
    assert.deepEqual(actions.kill, [{ name: SIDECAR, reason: 'WorkloadFinished', graceMs: 10_000 }]);
    assert.deepEqual(started(actions), []);
  });
});

describe('computePodActions: restarts with back-off', () => {
  it('restarts an exited container at once the first time, then holds it in CrashLoopBackOff until its back-off ends', () => {
    const podSpec = spec(['app']);
    const first = computePodActions(podSpec, snapshot(record([exited('app', 1, NOW - 100)])), NOW);
    assert.deepEqual(started(first), ['app']);
    const entry: RestartBackoff = nextRestartDelay(undefined, NOW - 2000);
    const held = computePodActions(podSpec, snapshot(record([exited('app', 1, NOW - 100, 1)]), { backoff: new Map([['app', entry]]) }), NOW);
    assert.deepEqual(started(held), []);
    assert.deepEqual(held.backOff.map((b) => [b.name, b.until, b.delayMs]), [['app', NOW - 100 + 10_000, 10_000]]);
    assert.equal(held.wakeAt, NOW - 100 + 10_000);
    const after = computePodActions(podSpec, snapshot(record([exited('app', 1, NOW - 100, 1)]), { backoff: new Map([['app', entry]]) }), NOW + 10_000);
    assert.deepEqual(started(after), ['app']);
  });

  it('wakes at the earliest back-off of several', () => {
    const backoff = new Map([
      ['a', { delayMs: 40_000, updatedAt: NOW - 5000 }],
      ['b', { delayMs: 10_000, updatedAt: NOW - 5000 }],
    ]);
    const actions = computePodActions(spec(['a', 'b']), snapshot(record([exited('a', 1, NOW - 100), exited('b', 1, NOW - 100)]), { backoff }), NOW);
    assert.equal(actions.wakeAt, NOW - 100 + 10_000);
  });

  it('follows the restart policy: OnFailure restarts failures only, Never nothing; a finished workload stops the sidecar', () => {
    const onFailure = computePodActions({ ...spec(['ok', 'bad']), restartPolicy: 'OnFailure' }, snapshot(record([exited('ok', 0), exited('bad', 2)], [], { restartPolicy: 'OnFailure' })), NOW);
    assert.deepEqual(started(onFailure), ['bad']);
    const never = computePodActions({ ...spec([SIDECAR, 'job']), restartPolicy: 'Never' }, snapshot(record([running(SIDECAR), exited('job', 1)], [], { restartPolicy: 'Never' }), { running: new Set([SIDECAR]) }), NOW);
    assert.deepEqual(started(never), []);
    assert.deepEqual(never.kill.map((k) => [k.name, k.reason]), [[SIDECAR, 'WorkloadFinished']]);
  });

  it('holds the sidecar in its back-off too, and then nothing else starts', () => {
    const backoff = new Map([[SIDECAR, { delayMs: 20_000, updatedAt: NOW - 3000 }]]);
    const pod = record([exited(SIDECAR, 1, NOW - 100, 2), waiting('app')], [], { initializedAt: undefined });
    const actions = computePodActions(spec([SIDECAR, 'app']), snapshot(pod, { backoff }), NOW);
    assert.deepEqual(actions.backOff.map((b) => b.name), [SIDECAR]);
    assert.deepEqual(started(actions), []);
  });
});

describe('computePodActions: probes', () => {
  it('kills a running container that failed its liveness or startup probe, with kubelet\'s words, and does not start it again in that sync', () => {
    const probeFailures = new Map([['app', { probe: 'liveness' as const, message: 'Container app failed liveness probe' }]]);
    const actions = computePodActions(spec(['app', 'other']), snapshot(record([running('app'), running('other')]), { running: new Set(['app', 'other']), probeFailures }), NOW);
    assert.deepEqual(actions.kill, [{ name: 'app', reason: 'ProbeFailed', message: 'Container app failed liveness probe' }]);
    assert.deepEqual(started(actions), []);
  });

  it('a failure of a container that already stopped kills nothing', () => {
    const probeFailures = new Map([['app', { probe: 'startup' as const, message: 'Container app failed startup probe' }]]);
    assert.deepEqual(computePodActions(spec(['app']), snapshot(record([exited('app', 137)]), { probeFailures }), NOW).kill, []);
  });

  it('starts the probes of running containers that have none (found running after an agent restart)', () => {
    const actions = computePodActions(spec(['app', 'db']), snapshot(record([running('app'), running('db')]), { running: new Set(['app', 'db']), unprobed: new Set(['db', 'gone']) }), NOW);
    assert.deepEqual(actions.probe, ['db']);
  });
});

describe('computePodActions: an adopted pod', () => {
  it('keeps its sandbox and running containers, restarts nothing, keeps the back-off it saved and resumes its probes', () => {
    const backoff = new Map([['sidecarless', { delayMs: 80_000, updatedAt: NOW - 20_000 }]]);
    const pod = record([running(SIDECAR), running('app'), exited('sidecarless', 1, NOW - 1000, 4)]);
    const actions = computePodActions(spec([SIDECAR, 'app', 'sidecarless']), snapshot(pod, { running: new Set([SIDECAR, 'app']), backoff, unprobed: new Set(['app']) }), NOW);
    assert.equal(actions.createSandbox, false);
    assert.deepEqual(started(actions), []);
    assert.deepEqual(actions.backOff.map((b) => [b.name, b.until]), [['sidecarless', NOW - 1000 + 80_000]]);
    assert.deepEqual(actions.probe, ['app']);
    assert.equal(actions.initialized, false, 'it was Initialized before');
  });
});

describe('computeTermination', () => {
  const podSpec: PodSpec = { containers: [{ name: 'app', lifecycle: { preStop: { exec: { command: ['drain'] } } } }, { name: 'other' }, { name: SIDECAR }] };

  it('announces every running container, runs the workload\'s preStop hooks, stops the workload within the grace period, then the sidecar', () => {
    const steps = computeTermination(podSpec, ['app', 'other', SIDECAR], NOW, 30_000, true);
    assert.deepEqual(steps, { announce: ['app', 'other', SIDECAR], preStop: ['app'], stop: ['app', 'other'], deadline: NOW + 30_000, stopLast: [SIDECAR], sidecarMinGraceMs: 2000 });
  });

  it('announces nothing for a pod the control plane forgot, and stops only what runs', () => {
    const steps = computeTermination(podSpec, ['other'], NOW, 2000, false);
    assert.deepEqual([steps.announce, steps.preStop, steps.stop, steps.stopLast], [[], [], ['other'], []]);
  });
});

describe('worker phases', () => {
  const syncing: WorkerPhase = { kind: 'syncing' };

  it('a deletion starts termination once, reported; the stop ends it', () => {
    const terminating = nextPhase(syncing, { type: 'deleted', graceMs: 30_000 });
    assert.deepEqual(terminating, { kind: 'terminating', graceMs: 30_000, report: true });
    assert.deepEqual(nextPhase(terminating, { type: 'deleted', graceMs: 1000 }), terminating, 'a later deletion changes nothing');
    assert.deepEqual(nextPhase(terminating, { type: 'stopped' }), { kind: 'terminated', report: true });
  });

  it('a pod forgotten while terminating keeps the shorter grace period and is no longer reported', () => {
    const terminating = nextPhase(syncing, { type: 'deleted', graceMs: 30_000 });
    assert.deepEqual(nextPhase(terminating, { type: 'forgotten', graceMs: 2000 }), { kind: 'terminating', graceMs: 2000, report: false });
    assert.deepEqual(nextPhase(syncing, { type: 'forgotten', graceMs: 2000 }), { kind: 'terminating', graceMs: 2000, report: false });
  });

  it('an eviction stops a syncing pod for good; the evicted pod waits for its deletion, which is reported', () => {
    const evicted = nextPhase(syncing, { type: 'evicted', message: 'over' });
    assert.deepEqual(evicted, { kind: 'evicted', message: 'over', announced: false });
    assert.deepEqual(nextPhase(evicted, { type: 'evicted', message: 'again' }), evicted, 'evicted once');
    assert.deepEqual(nextPhase(evicted, { type: 'stopped' }), evicted);
    assert.deepEqual(nextPhase(evicted, { type: 'deleted', graceMs: 30_000 }), { kind: 'terminating', graceMs: 30_000, report: true });
    assert.deepEqual(nextPhase(evicted, { type: 'forgotten', graceMs: 2000 }), { kind: 'terminating', graceMs: 2000, report: false });
    const terminating = nextPhase(syncing, { type: 'deleted', graceMs: 30_000 });
    assert.deepEqual(nextPhase(terminating, { type: 'evicted', message: 'over' }), terminating, 'a pod already stopping is not evicted');
  });

  it('nothing comes back from terminated, and a stop while syncing changes nothing', () => {
    const terminated: WorkerPhase = { kind: 'terminated', report: false };
    for (const event of [{ type: 'deleted', graceMs: 1 }, { type: 'forgotten', graceMs: 1 }, { type: 'stopped' }, { type: 'evicted', message: 'm' }] as const) assert.deepEqual(nextPhase(terminated, event), terminated);
    assert.deepEqual(nextPhase(syncing, { type: 'stopped' }), syncing);
  });
});
