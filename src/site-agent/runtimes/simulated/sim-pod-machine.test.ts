import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../apimachinery/object.js';
import { DEFAULT_SIM_OPTIONS, type SimOptions } from './sim-options.js';
import { initialSimPodState, type SimEvent, type SimPodState } from './sim-pod.js';
import { simPodFactsOf } from './sim-pod-facts.js';
import { stepSimPod } from './sim-pod-machine.js';
import { conditionOf, jsonAt } from '../../testing/json-path.js';

const T0 = Date.UTC(2020, 0, 1, 12, 0, 0);
const OPTIONS: SimOptions = { ...DEFAULT_SIM_OPTIONS, startMs: 1000, readyMs: 0, failureRate: 0, crashAfterMs: 2000, runMs: 5000, stopMs: 500 };

type Json = Record<string, unknown>;

function pod(spec: Record<string, unknown> = {}, annotations: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', namespace: 'shop', uid: 'u-1', annotations },
    spec: { containers: [{ name: 'app', image: 'nginx' }], restartPolicy: 'Always', ...spec },
    status: { phase: 'Pending', qosClass: 'BestEffort', conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: '2020-01-01T11:59:59Z' }] },
  };
}

/** Drives a pod through events at times (ms after T0), collecting the statuses it reports. */
function drive(object: KubeObject, events: Array<[number, SimEvent]>, options: SimOptions = OPTIONS): { state: SimPodState; statuses: Json[]; terminated: boolean } {
  let state = initialSimPodState(simPodFactsOf(object, { hostIP: '172.16.0.1', podIP: '10.1.2.3' }, options, T0), T0);
  const statuses: Json[] = [];
  let terminated = false;
  for (const [at, event] of events) {
    const step = stepSimPod(state, event, T0 + at, options);
    state = step.state;
    if (step.status !== undefined) statuses.push(step.status);
    terminated ||= step.terminated === true;
  }
  return { state, statuses, terminated };
}

const tick = (roll = 0.99): SimEvent => ({ type: 'tick', roll });

describe('stepSimPod', () => {
  it('simulated pod reports ContainerCreating when bound, as kubelet 1.17 does', () => {
    const { statuses, state } = drive(pod(), [[0, { type: 'bound' }]]);
    assert.equal(state.stage.kind, 'ContainerCreating');
    assert.equal(state.wakeAt, T0 + 1000);
    const status = statuses[0] as Json;
    assert.equal(status['phase'], 'Pending');
    assert.equal(status['hostIP'], '172.16.0.1');
    assert.equal(status['podIP'], undefined);
    assert.equal(status['startTime'], '2020-01-01T12:00:00Z');
    assert.equal(status['qosClass'], 'BestEffort');
    assert.deepEqual(
      (status['conditions'] as Json[]).map((c) => [c['type'], c['status'], c['reason']]),
      [['Initialized', 'True', undefined], ['Ready', 'False', 'ContainersNotReady'], ['ContainersReady', 'False', 'ContainersNotReady'], ['PodScheduled', 'True', undefined]],
    );
    assert.equal(conditionOf(status, 'Ready')['message'], 'containers with unready status: [app]');
    assert.equal(conditionOf(status, 'PodScheduled')['lastTransitionTime'], '2020-01-01T11:59:59Z');
    assert.deepEqual(status['containerStatuses'], [
      { name: 'app', state: { waiting: { reason: 'ContainerCreating' } }, lastState: {}, ready: false, restartCount: 0, image: 'nginx:latest', imageID: '', started: false },
    ]);
  });

  it('simulated pod ignores ticks before its wake time', () => {
    const { statuses, state } = drive(pod(), [[0, { type: 'bound' }], [999, tick()]]);
    assert.equal(statuses.length, 1);
    assert.equal(state.stage.kind, 'ContainerCreating');
  });

  it('simulated pod without readiness probe is Running and Ready once started', () => {
    const { statuses, state } = drive(pod(), [[0, { type: 'bound' }], [1000, tick()]]);
    assert.equal(state.stage.kind, 'Ready');
    assert.equal(state.wakeAt, undefined);
    const status = statuses[1] as Json;
    assert.equal(status['phase'], 'Running');
    assert.equal(status['podIP'], '10.1.2.3');
    assert.deepEqual(status['podIPs'], [{ ip: '10.1.2.3' }]);
    assert.equal(conditionOf(status, 'Ready')['status'], 'True');
    assert.equal(conditionOf(status, 'Ready')['lastTransitionTime'], '2020-01-01T12:00:01Z');
    assert.equal(conditionOf(status, 'ContainersReady')['status'], 'True');
    assert.deepEqual(jsonAt(status, 'containerStatuses.0.state'), { running: { startedAt: '2020-01-01T12:00:01Z' } });
    assert.equal(jsonAt(status, 'containerStatuses.0.ready'), true);
    assert.equal(jsonAt(status, 'containerStatuses.0.started'), true);
    assert.equal(jsonAt(status, 'containerStatuses.0.restartCount'), 0);
    assert.match(String(jsonAt(status, 'containerStatuses.0.containerID')), /^simulated:\/\/[0-9a-f]{64}$/);
    assert.match(String(jsonAt(status, 'containerStatuses.0.imageID')), /^simulated:\/\/nginx@sha256:[0-9a-f]{64}$/);
  });

  it('simulated pod with a readiness probe runs unready until its ready delay and initial delay pass', () => {
    const object = pod({ containers: [{ name: 'app', image: 'nginx:1.17', readinessProbe: { initialDelaySeconds: 2, httpGet: { port: 80 } } }, { name: 'side', image: 'busybox' }] });
    const { statuses, state } = drive(object, [[0, { type: 'bound' }], [1000, tick()], [1500, tick()], [3500, tick()]], { ...OPTIONS, readyMs: 500 });
    assert.equal(state.stage.kind, 'Ready');
    assert.equal(statuses.length, 4);
    const running = statuses[1] as Json;
    assert.equal(running['phase'], 'Running');
    assert.deepEqual((running['containerStatuses'] as Json[]).map((c) => c['ready']), [false, false]);
    assert.equal(conditionOf(running, 'Ready')['message'], 'containers with unready status: [app side]');
    const partly = statuses[2] as Json;
    assert.deepEqual((partly['containerStatuses'] as Json[]).map((c) => c['ready']), [false, true]);
    assert.equal(conditionOf(partly, 'Ready')['message'], 'containers with unready status: [app]');
    assert.equal(conditionOf(statuses[3] as Json, 'Ready')['status'], 'True');
    assert.equal(conditionOf(statuses[3] as Json, 'Ready')['lastTransitionTime'], '2020-01-01T12:00:03Z');
  });

  it('simulated crash shows terminated Error, then CrashLoopBackOff, then restarts with a doubled back-off', () => {
    const options = { ...OPTIONS, failureRate: 0.5 };
    const { statuses, state } = drive(
      pod(),
      [[0, { type: 'bound' }], [1000, tick(0.1)], [3000, tick()], [4000, tick()], [13000, tick(0.1)], [15000, tick()], [16000, tick()]],
      options,
    );
    const c = (i: number, path: string): unknown => jsonAt(statuses[i], `containerStatuses.0.${path}`);
    assert.deepEqual(c(2, 'state'), {
      terminated: { exitCode: 1, reason: 'Error', startedAt: '2020-01-01T12:00:01Z', finishedAt: '2020-01-01T12:00:03Z', containerID: c(1, 'containerID') },
    });
    assert.equal(statuses[2]?.['phase'], 'Running');
    assert.equal(conditionOf(statuses[2], 'Ready')['status'], 'False');
    assert.deepEqual(c(3, 'state'), { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 10s restarting failed container=app pod=web-1_shop(u-1)' } });
    assert.equal(c(3, 'lastState.terminated.exitCode'), 1);
    assert.equal(c(4, 'restartCount'), 1);
    assert.deepEqual(Object.keys(c(4, 'state') as Json), ['running']);
    assert.equal(c(4, 'lastState.terminated.reason'), 'Error');
    assert.notEqual(c(4, 'containerID'), c(1, 'containerID'));
    assert.equal(c(6, 'state.waiting.message'), 'back-off 20s restarting failed container=app pod=web-1_shop(u-1)');
    assert.equal(state.stage.kind, 'BackOff');
  });

  it('simulated Job pod (restartPolicy Never) succeeds after its run time', () => {
    const { statuses, state } = drive(pod({ restartPolicy: 'Never' }), [[0, { type: 'bound' }], [1000, tick()], [6000, tick()]]);
    assert.equal(state.stage.kind, 'Succeeded');
    assert.equal(state.wakeAt, undefined);
    const done = statuses[2] as Json;
    assert.equal(done['phase'], 'Succeeded');
    assert.equal(jsonAt(done, 'containerStatuses.0.state.terminated.reason'), 'Completed');
    assert.equal(jsonAt(done, 'containerStatuses.0.state.terminated.exitCode'), 0);
    assert.equal(jsonAt(done, 'containerStatuses.0.ready'), false);
    assert.equal(conditionOf(done, 'Ready')['reason'], 'PodCompleted');
    assert.equal(conditionOf(done, 'Ready')['message'], undefined);
  });

  it('simulated pod follows the run-seconds and exit-code annotations: Never fails, OnFailure restarts', () => {
    const annotations = { 'sim.edgeplane.io/run-seconds': '0.5', 'sim.edgeplane.io/exit-code': '3' };
    const never = drive(pod({ restartPolicy: 'Never' }, annotations), [[0, { type: 'bound' }], [1000, tick()], [1500, tick()]]);
    assert.equal(never.state.stage.kind, 'Failed');
    assert.equal(never.statuses[2]?.['phase'], 'Failed');
    assert.equal(jsonAt(never.statuses[2], 'containerStatuses.0.state.terminated.exitCode'), 3);
    assert.equal(conditionOf(never.statuses[2], 'Ready')['reason'], 'ContainersNotReady');
    const onFailure = drive(pod({ restartPolicy: 'OnFailure' }, annotations), [[0, { type: 'bound' }], [1000, tick()], [1500, tick()]]);
    assert.equal(onFailure.state.stage.kind, 'Exited');
    assert.equal(onFailure.statuses[2]?.['phase'], 'Running');
  });

  it('simulated pod marked for deletion stops after the stop delay, at most its grace period', () => {
    const slow = drive(pod(), [[0, { type: 'bound' }], [1000, tick()], [2000, { type: 'delete', graceMs: 30_000 }], [2400, tick()], [2500, tick()]]);
    assert.equal(slow.state.stage.kind, 'Stopped');
    assert.equal(slow.terminated, true);
    assert.equal(slow.statuses.length, 2, 'no status is reported while terminating');
    const now = drive(pod(), [[0, { type: 'bound' }], [1000, tick()], [2000, { type: 'delete', graceMs: 0 }]]);
    assert.equal(now.terminated, true);
    const again = drive(pod(), [[0, { type: 'bound' }], [10, { type: 'delete', graceMs: 0 }], [20, { type: 'delete', graceMs: 0 }], [30, tick()]]);
    assert.equal(again.state.stage.kind, 'Stopped');
  });

  it('simulated pod with init containers is initializing until it starts', () => {
    const { statuses } = drive(pod({ initContainers: [{ name: 'setup', image: 'busybox' }] }), [[0, { type: 'bound' }], [1000, tick()]]);
    const creating = statuses[0] as Json;
    assert.equal(conditionOf(creating, 'Initialized')['status'], 'False');
    assert.equal(conditionOf(creating, 'Initialized')['message'], 'containers with incomplete status: [setup]');
    assert.deepEqual(jsonAt(creating, 'initContainerStatuses.0.state'), { waiting: { reason: 'PodInitializing' } });
    assert.deepEqual(jsonAt(creating, 'containerStatuses.0.state'), { waiting: { reason: 'PodInitializing' } });
    const running = statuses[1] as Json;
    assert.equal(conditionOf(running, 'Initialized')['status'], 'True');
    assert.equal(jsonAt(running, 'initContainerStatuses.0.state.terminated.reason'), 'Completed');
    assert.equal(jsonAt(running, 'initContainerStatuses.0.ready'), true);
  });
});
