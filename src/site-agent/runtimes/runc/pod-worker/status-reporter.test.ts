import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../../../../common/testing/fake-timers.js';
import type { PodStatusItem } from '../../../../site-api/site-api-types.js';
import { podStatusNotReady } from '../../../../site-plane/site-lifecycle.js';
import type { ContainerRecord, PodRecord } from '../../kubelet/index.js';
import { StatusReporter } from './status-reporter.js';

type Json = Record<string, unknown>;

const running = (name: string): ContainerRecord => ({ name, image: 'i', imageID: 'host://', restartCount: 0, current: { kind: 'running', startedAt: 1000, containerID: `runc://${name}` }, ready: true, started: true });

function record(): PodRecord {
  return { uid: 'u', name: 'p', namespace: 'default', hostIP: '10.0.0.1', qosClass: 'BestEffort', restartPolicy: 'Always', scheduledAt: '2026-01-01T00:00:00Z', podIP: '10.0.0.2', startTime: 0, initializedAt: 0, readyChangedAt: 0, initContainers: [], containers: [running('app')] };
}

const readyOf = (status: Json | undefined): unknown => (status?.['conditions'] as Array<{ type: string; status: string; lastTransitionTime: string }>).find((c) => c.type === 'Ready');

describe('StatusReporter', () => {
  it('reports a serving pod again when the control plane marked it not Ready, then rests once its copy is back', () => {
    const timers = fakeTimers(Date.UTC(2026, 0, 1));
    const sent: PodStatusItem[] = [];
    const reporter = new StatusReporter({ status: (_key, item) => sent.push(item), terminated: () => undefined }, { key: 'k', cluster: { tenant: 't', namespace: 'default', name: 'vk' }, name: 'p', uid: 'u' }, timers);
    const pod = record();
    reporter.report(pod);
    assert.equal(sent.length, 1);
    const serving = JSON.parse(JSON.stringify(sent[0]?.status)) as Json;
    assert.equal(reporter.reconcile(pod, serving), false, 'its own status back');
    timers.advance(60_000);
    const marked = podStatusNotReady({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: serving }, '2026-01-01T00:00:45Z');
    assert.equal(reporter.reconcile(pod, marked), true);
    assert.equal(sent.length, 2);
    assert.deepEqual(readyOf(sent[1]?.status), { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:01:00Z' });
    assert.equal(reporter.reconcile(pod, JSON.parse(JSON.stringify(sent[1]?.status)) as Json), false);
    assert.equal(reporter.reconcile(pod, serving), false, 'the earlier report, late in the watch');
    assert.equal(sent.length, 2);
  });
});
