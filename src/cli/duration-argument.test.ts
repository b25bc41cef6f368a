import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from 'commander';
import { durationArgument, durationArgumentAtLeast } from './duration-argument.js';

describe('durationArgument', () => {
  it('reads seconds, minutes, hours and days', () => {
    assert.deepEqual(['3600s', '90m', '24h', '7d'].map(durationArgument), [3_600_000, 5_400_000, 86_400_000, 604_800_000]);
  });
  it('refuses no unit, fractions, other units and less than a minute', () => {
    for (const bad of ['24', '1.5h', '2w', '59s', '0m', '']) assert.throws(() => durationArgument(bad), InvalidArgumentError, bad);
  });
});

describe('durationArgumentAtLeast', () => {
  const atLeast100ms = durationArgumentAtLeast(100);
  it('reads milliseconds too, down to its minimum', () => {
    assert.deepEqual(['100ms', '1500ms', '2s', '1m'].map(atLeast100ms), [100, 1500, 2000, 60_000]);
  });
  it('refuses less than its minimum and what is not a duration', () => {
    for (const bad of ['99ms', '0s', '5', '1.5s', '']) assert.throws(() => atLeast100ms(bad), InvalidArgumentError, bad);
  });
});
