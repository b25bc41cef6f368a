import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../src/observability/metrics.js';
import { fanOutPassRecorder } from '../src/store/fan-out-pass-recorder.js';
import { fanOutBetween, fanOutTotals } from './fanout-metrics.js';

describe('fan-out figures from /metrics', () => {
  it('reads one resource’s pass histogram and counters, and what changed between two readings', async () => {
    const metrics = createMetrics({ version: 't', gitCommit: 't' });
    const configMaps = fanOutPassRecorder(metrics.watchCache, { group: '', resource: 'configmaps' });
    const deployments = fanOutPassRecorder(metrics.watchCache, { group: 'apps', resource: 'deployments' });
    configMaps({ durationMs: 200, flushes: 10, events: 10 });
    const before = fanOutTotals(await metrics.registry.metrics(), '', 'configmaps');
    for (let i = 0; i < 99; i++) configMaps({ durationMs: 18, flushes: 1000, events: 3000 });
    configMaps({ durationMs: 60, flushes: 1000, events: 1000 });
    deployments({ durationMs: 900, flushes: 1, events: 50 });
    const figures = fanOutBetween(before, fanOutTotals(await metrics.registry.metrics(), '', 'configmaps'));
    assert.equal(figures.passes, 100);
    assert.equal(figures.p50AtMostMs, 20);
    assert.equal(figures.p99AtMostMs, 20);
    assert.ok(Math.abs(figures.meanMs - (99 * 18 + 60) / 100) < 1e-6, String(figures.meanMs));
    assert.equal(figures.eventsPerWrite, (99 * 3000 + 1000) / 100_000);
    assert.equal(fanOutTotals('', '', 'configmaps').passes, 0);
    const slow = fanOutTotals(await metrics.registry.metrics(), 'apps', 'deployments');
    assert.equal(fanOutBetween({ ...slow, passes: 0, seconds: 0, buckets: [], flushes: 0, events: 0 }, slow).p99AtMostMs, 1000, 'a pass of 900 ms is in the 1 s bucket');
    deployments({ durationMs: 5000, flushes: 1, events: 1 });
    const slower = fanOutTotals(await metrics.registry.metrics(), 'apps', 'deployments');
    assert.equal(fanOutBetween(slow, slower).p99AtMostMs, Number.POSITIVE_INFINITY, 'above every bound: +Inf');
  });
});
