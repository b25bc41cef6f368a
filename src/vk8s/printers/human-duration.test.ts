import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { durationBetween, humanDuration, timestampSince } from './human-duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration', () => {
  it('humanDuration matches apimachinery 1.17 at every boundary', () => {
    const cases: Array<[number, string]> = [
      [-2 * S, '<invalid>'],
      [-1999, '0s'],
      [-1 * S, '0s'],
      [0, '0s'],
      [999, '0s'],
      [S, '1s'],
      [59 * S, '59s'],
      [2 * M - 1, '119s'],
      [2 * M, '2m'],
      [2 * M + 5 * S, '2m5s'],
      [10 * M - 1, '9m59s'],
      [10 * M, '10m'],
      [3 * H - 1, '179m'],
      [3 * H, '3h'],
      [3 * H + 30 * M, '3h30m'],
      [8 * H - 1, '7h59m'],
      [8 * H, '8h'],
      [48 * H - 1, '47h'],
      [48 * H, '2d'],
      [2 * D + 5 * H, '2d5h'],
      [8 * D - 1, '7d23h'],
      [8 * D, '8d'],
      [2 * Y - 1, '729d'],
      [2 * Y, '2y0d'],
      [2 * Y + 23 * H, '2y0d'],
      [3 * Y + 10 * D, '3y10d'],
      [8 * Y - 1, '7y364d'],
      [8 * Y, '8y'],
      [9 * Y + 364 * D, '9y'],
    ];
    for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `${ms}ms`);
  });

  it('timestampSince measures to now and reads <unknown> without a timestamp', () => {
    const now = new Date('2020-01-01T12:00:00Z');
    assert.equal(timestampSince('2020-01-01T11:55:00Z', now), '5m');
    assert.equal(timestampSince('2019-12-30T12:00:00Z', now), '2d');
    assert.equal(timestampSince(undefined, now), '<unknown>');
    assert.equal(timestampSince(null, now), '<unknown>');
    assert.equal(timestampSince('', now), '<unknown>');
    assert.equal(timestampSince('not a date', now), '<unknown>');
    assert.equal(timestampSince('2020-01-01T12:00:10Z', now), '<invalid>', 'a creation time 10s in the future');
  });

  it('durationBetween spans two timestamps or a timestamp and a date', () => {
    assert.equal(durationBetween('2020-01-01T00:00:00Z', '2020-01-01T00:00:42Z'), '42s');
    assert.equal(durationBetween('2020-01-01T00:00:00Z', new Date('2020-01-01T01:00:00Z')), '60m');
    assert.equal(durationBetween('garbage', '2020-01-01T00:00:42Z'), '');
  });
});
