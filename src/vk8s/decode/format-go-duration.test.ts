import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatGoDuration } from './format-go-duration.js';

describe('formatGoDuration', () => {
  it('formatGoDuration writes durations as Go does', () => {
    const cases: Array<[number, string]> = [[0, '0s'], [500, '500ns'], [1500, '1.5µs'], [1.5e6, '1.5ms'], [1e9, '1s'], [90e9, '1m30s'], [3.6e12, '1h0m0s'], [3723.5e9, '1h2m3.5s'], [-2e9, '-2s']];
    for (const [ns, text] of cases) assert.equal(formatGoDuration(ns), text);
  });
});
