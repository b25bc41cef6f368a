import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeRow, proxyTable, shareRow } from './proxy-report.js';

describe('the proxy bench table', () => {
  it('a share row compares the proxy with direct against its goal, at the boundary too', () => {
    const direct = { value: 1000, text: '1,000/s' };
    assert.deepEqual(shareRow('rate', { value: 800, text: '800/s' }, direct, 0.8), { figure: 'rate', proxy: '800/s', direct: '1,000/s', ratio: '80 %', goal: '≥ 80 % of direct', verdict: 'met' });
    assert.equal(shareRow('rate', { value: 799, text: '' }, direct, 0.8).verdict, 'missed');
    assert.equal(shareRow('rate', { value: 500, text: '' }, direct).verdict, '');
    assert.equal(shareRow('rate', { value: 500, text: '' }, { value: 0, text: '' }, 0.6).ratio, 'n/a');
  });

  it('a change row gives p50 and p99 of its samples against the p99 goal', () => {
    const samples = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    assert.deepEqual(changeRow('new Service', samples, 1000), { figure: 'new Service (20 trials)', proxy: 'p50 100 ms, p99 200 ms', direct: '—', ratio: '—', goal: 'p99 ≤ 1.00 s', verdict: 'met' });
    assert.equal(changeRow('x', [100, 1500], 1000).verdict, 'missed');
    assert.equal(changeRow('x', [1500], 1000).proxy, 'p50 1.50 s, p99 1.50 s');
  });

  it('prints a Markdown table with padded columns', () => {
    const table = proxyTable([shareRow('rate', { value: 1, text: '1/s' }, { value: 2, text: '2/s' }, 0.6)]).split('\n');
    assert.equal(table.length, 3);
    assert.match(table[0] as string, /^\| figure \| through the proxy \| direct to the pod IP \(same run\) \| ratio \| goal +\| met\/missed \|$/);
    assert.match(table[2] as string, /^\| rate +\| 1\/s +\| 2\/s +\| 50 % +\| ≥ 60 % of direct \| missed +\|$/);
    assert.ok(table.every((line) => line.length === (table[0] as string).length));
  });
});
