import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from './metric-cells.js';

const BUCKETS = [0.001, 0.01, 0.1, 1];
const OBSERVED: Array<[string, string, number]> = [
  ['GET', '/a', 0.0004],
  ['GET', '/a', 0.004],
  ['GET', '/a', 0.001],
  ['POST', '/a', 2.5],
  ['GET', '/b "quoted"', 0.05],
];

describe('metric cells', () => {
  it('cell metrics render exactly as prom-client counters and histograms fed the same values', async () => {
    const reference = new Registry();
    const counter = new Counter({ name: 'requests_total', help: 'Requests.', labelNames: ['method', 'route', 'code'], registers: [reference] });
    const histogram = new Histogram({ name: 'duration_seconds', help: 'Duration.', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [reference] });
    const cells = new Registry();
    const cellCounter = new CellCounter({ name: 'requests_total', help: 'Requests.', labelNames: ['method', 'route', 'code'], registers: [cells] });
    const cellHistogram = new CellHistogram({ name: 'duration_seconds', help: 'Duration.', labelNames: ['method', 'route'], buckets: BUCKETS, registers: [cells] });
    const kept = cellCounter.cell({ method: 'GET', route: '/a', code: '200' });
    for (const [method, route, seconds] of OBSERVED) {
      counter.inc({ method, route, code: '200' });
      histogram.observe({ method, route }, seconds);
      if (method === 'GET' && route === '/a') kept.inc();
      else cellCounter.inc({ method, route, code: '200' });
      cellHistogram.observe({ method, route }, seconds);
    }
    assert.equal(await cells.metrics(), await reference.metrics());
    // Counts recorded after a scrape are added on the next one, never twice.
    counter.inc({ method: 'GET', route: '/a', code: '200' }, 2);
    kept.inc(2);
    assert.equal(await cells.metrics(), await reference.metrics());
    // The JSON form carries the same series (prom-client adds empty exemplars).
    const series = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).map((m) => ({ ...m, values: m.values.map(({ labels, value }) => ({ labels, value })) }));
    assert.deepEqual(await series(cells), await series(reference));
  });

  it('a label set passed with more properties than the metric has labels renders only its labels', async () => {
    const registry = new Registry();
    const counter = new CellCounter({ name: 'c_total', help: 'C.', labelNames: ['group', 'resource'], registers: [registry] });
    const histogram = new CellHistogram({ name: 'h_seconds', help: 'H.', labelNames: ['group', 'resource'], buckets: [1], registers: [registry] });
    const resource = { group: 'apps', resource: 'deployments', kind: 'Deployment', verbs: ['get'] };
    counter.inc(resource);
    histogram.observe(resource, 0.5);
    const text = await registry.metrics();
    assert.match(text, /^c_total\{group="apps",resource="deployments"\} 1$/m);
    assert.match(text, /^h_seconds_count\{group="apps",resource="deployments"\} 1$/m);
    assert.doesNotMatch(text, /kind=|verbs=/);
  });

  it('cell histogram timers observe the elapsed seconds', () => {
    const histogram = new CellHistogram({ name: 't_seconds', help: 'T.', labelNames: ['op'], buckets: BUCKETS, registers: [] });
    const end = histogram.startTimer({ op: 'x' });
    const seconds = end();
    assert.ok(seconds >= 0 && seconds < 1);
  });
});
