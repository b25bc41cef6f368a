import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderReport, runChecks, type HealthCheck } from './health.js';

const ok = (name: string): HealthCheck => ({ name, run: () => Promise.resolve() });
const failing = (name: string, reason: string): HealthCheck => ({ name, run: () => Promise.reject(new Error(reason)) });

describe('health checks', () => {
  it('renderReport answers a bare "ok" when everything passes and verbose is off', () => {
    const report = renderReport('readyz', [{ name: 'ping', status: 'ok' }], { verbose: false });
    assert.deepEqual([report.statusCode, report.body], [200, 'ok']);
  });

  it('renderReport lists every check with verbose, in kube-apiserver\'s format', () => {
    const report = renderReport(
      'livez',
      [
        { name: 'ping', status: 'ok' },
        { name: 'etcd', status: 'excluded' },
      ],
      { verbose: true, unknownExcludes: ['nope'] },
    );
    assert.equal(report.statusCode, 200);
    assert.equal(
      report.body,
      '[+]ping ok\n[+]etcd excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nope"\nlivez check passed\n',
    );
  });

  it('renderReport fails with 500, lists checks and withholds the reason', () => {
    const report = renderReport(
      'readyz',
      [
        { name: 'ping', status: 'ok' },
        { name: 'sqlite', status: 'failed', reason: 'disk on fire' },
      ],
      { verbose: false },
    );
    assert.equal(report.statusCode, 500);
    assert.equal(report.body, '[+]ping ok\n[-]sqlite failed: reason withheld\nreadyz check failed\n');
    assert.ok(!report.body.includes('disk on fire'));
    assert.equal(report.failures[0]?.reason, 'disk on fire');
  });

  it('runChecks runs checks, honours exclusions and times out slow checks', async () => {
    const slow: HealthCheck = { name: 'slow', run: () => new Promise((r) => setTimeout(r, 1000)) };
    const results = await runChecks([ok('ping'), failing('bad', 'broken'), slow, ok('skipped')], new Set(['skipped']), 50);
    assert.deepEqual(
      results.map((r) => [r.name, r.status]),
      [
        ['ping', 'ok'],
        ['bad', 'failed'],
        ['slow', 'failed'],
        ['skipped', 'excluded'],
      ],
    );
    assert.match(results[2]?.reason ?? '', /timed out after 50 ms/);
  });
});
