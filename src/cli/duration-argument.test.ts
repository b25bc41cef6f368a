import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InvalidArgumentError } from 'commander';
import { durationArgument } from './duration-argument.js';

describe('durationArgument', () => {
  it('reads seconds, minutes, hours and days', () => {
    assert.deepEqual(['3600s', '90m', '24h', '7d'].map(durationArgument), [3_600_000, 5_400_000, 86_400_000, 604_800_000]);
  });
  it('refuses no unit, fractions, other units and less than a minute', () => {
    for (const bad of ['24', '1.5h', '2w', '59s', '0m', '']) assert.throws(() => durationArgument(bad), InvalidArgumentError, bad);
  });
});
