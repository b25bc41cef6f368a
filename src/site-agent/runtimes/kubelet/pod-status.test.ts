import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backOffAfterRestarts, nextRestartDelay, restartWaitUntil } from './crash-backoff.js';
import type { ContainerRecord, PodRecord } from './pod-record.js';
import { podPhase } from './pod-phase.js';
import { renderPodStatus } from './pod-status.js';

const running = (name: string, ready = true): ContainerRecord => ({ name, image: 'i', imageID: 'host://', restartCount: 0, current: { kind: 'running', startedAt: 1000, containerID: `runc://${name}` }, ready, started: true });
const exited = (name: string, exitCode: number): ContainerRecord => ({
  name,
  image: 'i',
  imageID: 'host://',
  restartCount: 0,
  current: { kind: 'terminated', termination: { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: 1000, finishedAt: 2000, containerID: `runc://${name}` } },
  ready: false,
  started: false,
});

function pod(containers: ContainerRecord[], restartPolicy: PodRecord['restartPolicy'] = 'Always'): PodRecord {
  return { uid: 'u', name: 'p', namespace: 'default', hostIP: '10.0.0.1', qosClass: 'BestEffort', restartPolicy, scheduledAt: '2026-01-01T00:00:00Z', podIP: '10.0.0.2', startTime: 0, initializedAt: 0, readyChangedAt: 0, initContainers: [], containers };
}

describe('pod status', () => {
  it('decides the phase as kubelet does, leaving the injected sidecar out of it', () => {
    assert.equal(podPhase(pod([running('c')])), 'Running');
    assert.equal(podPhase(pod([exited('c', 0), running('edgeplane-sidecar')], 'Never')), 'Succeeded');
    assert.equal(podPhase(pod([exited('c', 1), exited('edgeplane-sidecar', 0)], 'Never')), 'Failed');
    assert.equal(podPhase(pod([exited('c', 1)], 'OnFailure')), 'Running');
    assert.equal(podPhase(pod([exited('c', 1)], 'Always')), 'Running');
    assert.equal(podPhase({ ...pod([running('c')]), initializedAt: undefined }), 'Pending');
    const waiting = { ...pod([]), podIP: undefined };
    assert.equal(podPhase({ ...waiting, failure: { reason: 'FailedCreatePodSandBox', message: 'm' } }), 'Pending', 'tried again');
    assert.equal(podPhase({ ...waiting, failure: { reason: 'SysctlForbidden', message: 'm', final: true } }), 'Failed', 'refused for good');
  });

  it('reports Ready only when every container, the sidecar included, is ready', () => {
    const status = renderPodStatus(pod([running('c'), running('edgeplane-sidecar', false)]), 0) as { conditions: Array<{ type: string; status: string; message?: string }>; podIPs: unknown };
    const ready = status.conditions.find((c) => c.type === 'Ready');
    assert.equal(ready?.status, 'False');
    assert.equal(ready?.message, 'containers with unready status: [edgeplane-sidecar]');
    assert.deepEqual(status.podIPs, [{ ip: '10.0.0.2' }]);
  });
});

describe('an evicted pod', () => {
  it('is Failed with reason Evicted and the eviction\'s message, whatever its containers; the status holds no more than kubelet 1.17 left', () => {
    const evicted: PodRecord = { ...pod([exited('c', 137), running('edgeplane-sidecar', false)]), startTime: Date.UTC(2026, 0, 1, 0, 0, 5), evicted: { message: 'Usage of EmptyDir volume "data" exceeds the limit "10Mi". ' } };
    assert.equal(podPhase(evicted), 'Failed');
    assert.deepEqual(renderPodStatus(evicted, 0), {
      phase: 'Failed',
      conditions: [{ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:00Z' }],
      reason: 'Evicted',
      message: 'Usage of EmptyDir volume "data" exceeds the limit "10Mi". ',
      startTime: '2026-01-01T00:00:05Z',
    });
    assert.equal(podPhase({ ...evicted, restartPolicy: 'Always', containers: [running('c')] }), 'Failed');
  });
});

describe('crash back-off', () => {
  it('restarts at once after the first crash, then waits 10 s doubling to 5 min, and forgets after 10 quiet minutes', () => {
    assert.equal(restartWaitUntil(undefined, 0), undefined);
    let entry = nextRestartDelay(undefined, 0);
    assert.equal(restartWaitUntil(entry, 1000), 11_000);
    const delays = [entry.delayMs];
    for (let i = 0; i < 7; i++) delays.push((entry = nextRestartDelay(entry, 1000 * i)).delayMs);
    assert.deepEqual(delays, [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    assert.equal(restartWaitUntil(entry, 6000 + 600_001), undefined);
    assert.equal(nextRestartDelay(entry, 6000 + 600_001).delayMs, 10_000);
  });
});

describe('crash back-off by restart count', () => {
  it('is 10 s after the first restart, doubling to at most 5 min', () => {
    assert.deepEqual([0, 1, 2, 3, 4, 5, 10, 40].map(backOffAfterRestarts), [10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });
});
