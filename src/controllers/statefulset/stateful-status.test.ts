import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatefulSiteCounts } from './stateful-site-plan.js';
import { statefulSetStatus } from './stateful-status.js';
import { templateRevision } from './revision-hash.js';

const counts = (replicas: number, ready: number, current: number, updated: number): StatefulSiteCounts => ({ replicas, readyReplicas: ready, currentReplicas: current, updatedReplicas: updated });

describe('statefulset status', () => {
  it('statefulset status sums the sites and holds observedGeneration until every site settled', () => {
    const sites = new Map([
      ['a', { counts: counts(2, 2, 0, 2), settled: true }],
      ['b', { counts: counts(2, 1, 1, 1), settled: false }],
    ]);
    const status = statefulSetStatus({ generation: 2, previous: { observedGeneration: 1 }, rollingUpdate: true, currentRevision: 'web-old', updateRevision: 'web-new', sites });
    assert.equal(status.replicas, 4);
    assert.equal(status.readyReplicas, 3);
    assert.equal(status.updatedReplicas, 3);
    assert.equal(status.currentReplicas, 1);
    assert.equal(status.observedGeneration, 1);
    assert.equal(status.currentRevision, 'web-old');
    assert.equal(status.updateRevision, 'web-new');
  });

  it('statefulset status completes the rolling update once every pod is updated and ready', () => {
    const sites = new Map([
      ['a', { counts: counts(2, 2, 0, 2), settled: true }],
      ['b', { counts: counts(2, 2, 0, 2), settled: true }],
    ]);
    const status = statefulSetStatus({ generation: 2, previous: { observedGeneration: 1, collisionCount: 0 }, rollingUpdate: true, currentRevision: 'web-old', updateRevision: 'web-new', sites });
    assert.equal(status.currentRevision, 'web-new');
    assert.equal(status.currentReplicas, 4);
    assert.equal(status.observedGeneration, 2);
  });

  it('statefulset status does not complete the rolling update while a site is missing pods', () => {
    const sites = new Map([
      ['a', { counts: counts(1, 1, 0, 1), settled: false }],
      ['b', { counts: counts(2, 2, 0, 2), settled: true }],
    ]);
    const status = statefulSetStatus({ generation: 2, previous: {}, rollingUpdate: true, currentRevision: 'web-old', updateRevision: 'web-new', sites });
    assert.equal(status.currentRevision, 'web-old');
  });

  it('statefulset status leaves zero counts out, as Go omitempty does', () => {
    const status = statefulSetStatus({ generation: 1, previous: {}, rollingUpdate: true, currentRevision: 'r', updateRevision: 'r', sites: new Map([['a', { counts: counts(1, 0, 1, 1), settled: false }]]) });
    assert.equal('readyReplicas' in status, false);
    assert.equal(status.replicas, 1);
    assert.equal('observedGeneration' in status, false);
  });

  it('statefulset revision names change with the template and not with key order', () => {
    const a = templateRevision('web', { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } });
    const b = templateRevision('web', { spec: { containers: [{ image: 'nginx:1', name: 'c' }] }, metadata: { labels: { app: 'web' } } });
    const c = templateRevision('web', { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } });
    assert.equal(a, b);
    assert.notEqual(a, c);
    assert.match(a, /^web-[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
  });
});
