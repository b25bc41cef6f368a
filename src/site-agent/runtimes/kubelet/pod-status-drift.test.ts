import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podStatusNotReady } from '../../../site-plane/site-lifecycle.js';
import type { ContainerRecord, PodRecord } from './pod-record.js';
import { podStatusDrifted, ReportedStatuses } from './pod-status-drift.js';
import { renderPodStatus } from './pod-status.js';

type Json = Record<string, unknown>;

const running = (name: string, ready = true): ContainerRecord => ({ name, image: 'i', imageID: 'host://', restartCount: 0, current: { kind: 'running', startedAt: 1000, containerID: `runc://${name}` }, ready, started: true });

function record(containers: ContainerRecord[]): PodRecord {
  return { uid: 'u', name: 'p', namespace: 'default', hostIP: '10.0.0.1', qosClass: 'BestEffort', restartPolicy: 'Always', scheduledAt: '2026-01-01T00:00:00Z', podIP: '10.0.0.2', startTime: 0, initializedAt: 0, readyChangedAt: 0, initContainers: [], containers };
}

/** A JSON round trip, as the control plane stores and sends it back. */
const copy = (status: Json): Json => JSON.parse(JSON.stringify(status)) as Json;

describe('pod status drift', () => {
  const serving = renderPodStatus(record([running('app'), running('edgeplane-sidecar')]), 5000);

  it('sees none when the control plane holds what the site reported, whatever its timestamps, messages and IDs', () => {
    assert.equal(podStatusDrifted(serving, copy(serving)), false);
    const normalized = copy(serving) as { conditions: Json[]; containerStatuses: Json[]; startTime?: string };
    normalized.conditions = normalized.conditions.map((c) => ({ ...c, lastTransitionTime: '2030-01-01T00:00:00Z', message: 'other' }));
    normalized.containerStatuses = normalized.containerStatuses.map((c) => ({ ...c, imageID: 'docker://x', containerID: 'runc://y', state: { running: { startedAt: '2030-01-01T00:00:00Z' } } }));
    delete normalized.startTime;
    assert.equal(podStatusDrifted(serving, normalized), false);
    assert.equal(podStatusDrifted(serving, { ...copy(serving), conditions: [...(copy(serving)['conditions'] as Json[]), { type: 'DisruptionTarget', status: 'True' }] }), false, 'a condition the site does not report is the control plane\'s');
  });

  it('sees the node lifecycle controller\'s Ready=False on a serving pod (a lease expired), and the opposite', () => {
    const marked = podStatusNotReady({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: copy(serving) }, '2030-01-01T00:00:00Z');
    assert.ok(marked !== undefined);
    assert.equal(podStatusDrifted(serving, marked), true);
    const notServing = renderPodStatus(record([running('app', false), running('edgeplane-sidecar')]), 5000);
    assert.equal(podStatusDrifted(notServing, copy(serving)), true, 'the control plane shows Ready a pod that is not');
  });

  it('sees a different phase, address or container state, ready flag or restart count', () => {
    const changed = (edit: (status: Json) => void): boolean => {
      const status = copy(serving);
      edit(status);
      return podStatusDrifted(serving, status);
    };
    const first = (status: Json): Json => (status['containerStatuses'] as Json[])[0] as Json;
    assert.equal(changed((s) => (s['phase'] = 'Pending')), true);
    assert.equal(changed((s) => delete s['podIP']), true);
    assert.equal(changed((s) => (s['hostIP'] = '10.9.9.9')), true);
    assert.equal(changed((s) => (first(s)['ready'] = false)), true);
    assert.equal(changed((s) => (first(s)['restartCount'] = 3)), true);
    assert.equal(changed((s) => (first(s)['state'] = { waiting: { reason: 'CrashLoopBackOff' } })), true);
    assert.equal(changed((s) => (s['containerStatuses'] = [first(s)])), true, 'a container missing');
    assert.equal(changed((s) => delete s['conditions']), true);
  });

  it('does not fight a phase the control plane ended, and sees nothing before the site reported', () => {
    assert.equal(podStatusDrifted(serving, { ...copy(serving), phase: 'Failed', reason: 'Evicted' }), false);
    const failed = { ...copy(serving), phase: 'Failed' };
    assert.equal(podStatusDrifted(failed, { ...copy(serving), phase: 'Succeeded' }), true, 'both terminal: the site\'s word');
    assert.equal(podStatusDrifted(undefined, copy(serving)), false);
    assert.equal(podStatusDrifted(serving, undefined), true);
  });

  it('tells drift from an echo of an older report still on its way, and from a copy no site has reported to yet', () => {
    const starting = renderPodStatus(record([running('app', false), running('edgeplane-sidecar')]), 4000);
    const reported = new ReportedStatuses();
    assert.equal(reported.drifted(copy(serving)), false, 'nothing reported yet');
    reported.note(starting);
    reported.note(serving);
    assert.equal(reported.drifted(copy(starting)), false, 'the older report, late in the watch: the newer follows');
    assert.equal(reported.drifted({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] }), false, 'the pod as bound');
    const marked = podStatusNotReady({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, status: copy(serving) }, '2030-01-01T00:00:00Z');
    assert.equal(reported.drifted(marked), true);
    assert.equal(reported.newest, serving);
  });
});
