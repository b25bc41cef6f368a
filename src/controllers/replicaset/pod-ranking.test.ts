import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { podsToDelete } from './pod-ranking.js';
import { replicaSetStatus } from './replica-set-status.js';

function pod(name: string, options: { node?: string; phase?: string; readySince?: string; restarts?: number; created?: string; labels?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, creationTimestamp: options.created ?? '2024-05-01T12:00:00Z', labels: options.labels ?? { app: 'web' } },
    spec: { containers: [], ...(options.node === undefined ? {} : { nodeName: options.node }) },
    status: {
      phase: options.phase ?? 'Running',
      conditions: options.readySince === undefined ? [] : [{ type: 'Ready', status: 'True', lastTransitionTime: options.readySince }],
      containerStatuses: [{ restartCount: options.restarts ?? 0 }],
    },
  };
}

describe('replica set pods', () => {
  it('replica set deletes unscheduled, pending, unready, doubled-up, recently ready, restarting, newer pods first', () => {
    const pods = [
      pod('ready-long', { node: 'n1', readySince: '2024-05-01T10:00:00Z' }),
      pod('ready-recent', { node: 'n2', readySince: '2024-05-01T11:00:00Z' }),
      pod('unscheduled', { phase: 'Pending' }),
      pod('pending', { node: 'n3', phase: 'Pending' }),
      pod('running-unready', { node: 'n4' }),
      pod('doubled', { node: 'n1', readySince: '2024-05-01T10:00:00Z' }),
    ];
    // ready-long and doubled share node n1: they go before ready-recent, alone on n2, although it became ready later.
    assert.deepEqual(podsToDelete(pods, 5).map((p) => p.metadata.name), ['unscheduled', 'pending', 'running-unready', 'ready-long', 'doubled']);
    const restarts = [pod('calm', { node: 'a', restarts: 0 }), pod('flaky', { node: 'b', restarts: 3 })];
    assert.equal(podsToDelete(restarts, 1)[0]?.metadata.name, 'flaky');
    const ages = [pod('old', { node: 'a', created: '2024-05-01T10:00:00Z' }), pod('new', { node: 'b', created: '2024-05-01T11:00:00Z' })];
    assert.equal(podsToDelete(ages, 1)[0]?.metadata.name, 'new');
    const readiness = [pod('long', { node: 'a', readySince: '2024-05-01T09:00:00Z' }), pod('short', { node: 'b', readySince: '2024-05-01T11:00:00Z' })];
    assert.equal(podsToDelete(readiness, 1)[0]?.metadata.name, 'short');
  });

  it('replica set status counts labelled, ready and available pods and keeps a ReplicaFailure condition while failing', () => {
    const now = new Date('2024-05-01T12:00:10Z');
    const pods = [pod('a', { readySince: '2024-05-01T12:00:00Z' }), pod('b', { readySince: '2024-05-01T11:00:00Z' }), pod('c', { labels: {} })];
    const failing = replicaSetStatus({ pods, templateLabels: { app: 'web' }, minReadySeconds: 30, generation: 4, previousConditions: [], failure: { reason: 'FailedCreate', message: 'quota' }, now });
    assert.deepEqual(
      { ...failing, conditions: failing.conditions?.map((c) => [c.type, c.status, c.reason, c.message]) },
      { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 4, conditions: [['ReplicaFailure', 'True', 'FailedCreate', 'quota']] },
    );
    const healed = replicaSetStatus({ pods, templateLabels: { app: 'web' }, minReadySeconds: 0, generation: 4, previousConditions: failing.conditions ?? [], now });
    assert.equal(healed.conditions, undefined);
    assert.equal(healed.availableReplicas, 2);
  });
});
