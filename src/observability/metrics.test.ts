import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from './metrics.js';
import { fanOutPassRecorder } from '../store/fan-out-pass-recorder.js';

describe('watch cache metrics', () => {
  it('a pass recorder adds each pass to its resource: duration histogram, writes and events counters', async () => {
    const metrics = createMetrics({ version: 't', gitCommit: 't' });
    const record = fanOutPassRecorder(metrics.watchCache, { group: '', resource: 'configmaps' });
    record({ durationMs: 12, flushes: 1000, events: 2700 });
    record({ durationMs: 30, flushes: 999, events: 999 });
    fanOutPassRecorder(metrics.watchCache, { group: 'apps', resource: 'deployments' })({ durationMs: 1, flushes: 1, events: 1 });
    const text = await metrics.registry.metrics();
    const cm = 'group="",resource="configmaps"';
    assert.match(text, new RegExp(`^edgeplane_watch_events_total\\{${cm}\\} 3699$`, 'm'));
    assert.match(text, new RegExp(`^edgeplane_watch_cache_flushes_total\\{${cm}\\} 1999$`, 'm'));
    assert.match(text, new RegExp(`^edgeplane_watch_cache_fanout_pass_duration_seconds_bucket\\{le="0.015",${cm}\\} 1$`, 'm'));
    assert.match(text, new RegExp(`^edgeplane_watch_cache_fanout_pass_duration_seconds_bucket\\{le="0.03",${cm}\\} 2$`, 'm'));
    const sum = Number(new RegExp(`^edgeplane_watch_cache_fanout_pass_duration_seconds_sum\\{${cm}\\} (\\S+)$`, 'm').exec(text)?.[1]);
    assert.ok(Math.abs(sum - 0.042) < 1e-9, String(sum));
    assert.match(text, /^edgeplane_watch_events_total\{group="apps",resource="deployments"\} 1$/m);
  });
});
