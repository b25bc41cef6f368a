import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jobNameFor, lastRunIn, nextRunAfter, rfc1123z, unmetScheduleTimes } from './cron-times.js';

const at = (iso: string): Date => new Date(iso);
const everyMinute = { kind: 'cron', expression: '* * * * *' } as const;

describe('cron times', () => {
  it('cron times give the next run strictly after a time, in UTC', () => {
    assert.equal(nextRunAfter(everyMinute, at('2024-01-01T00:00:30Z')).toISOString(), '2024-01-01T00:01:00.000Z');
    assert.equal(nextRunAfter(everyMinute, at('2024-01-01T00:01:00Z')).toISOString(), '2024-01-01T00:02:00.000Z');
    assert.equal(nextRunAfter({ kind: 'cron', expression: '0 9 * * 1' }, at('2024-01-01T09:00:00Z')).toISOString(), '2024-01-08T09:00:00.000Z');
    assert.equal(nextRunAfter({ kind: 'every', seconds: 90 }, at('2024-01-01T00:00:10.700Z')).toISOString(), '2024-01-01T00:01:40.000Z');
  });

  it('cron times find the most recent unmet run since the last one', () => {
    const unmet = unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:00:00Z'), now: at('2024-01-01T00:03:30Z') });
    assert.deepEqual(unmet, { kind: 'due', count: 3, latest: at('2024-01-01T00:03:00Z') });
    assert.deepEqual(unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:03:00Z'), now: at('2024-01-01T00:03:59Z') }), { kind: 'due', count: 0 });
  });

  it('cron times only look back startingDeadlineSeconds when set', () => {
    const unmet = unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:00:00Z'), now: at('2024-01-01T00:03:30Z'), startingDeadlineSeconds: 20 });
    assert.deepEqual(unmet, { kind: 'due', count: 0 });
    const within = unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:00:00Z'), now: at('2024-01-01T00:03:10Z'), startingDeadlineSeconds: 20 });
    assert.deepEqual(within, { kind: 'due', count: 1, latest: at('2024-01-01T00:03:00Z') });
  });

  it('cron times refuse more than 100 missed runs', () => {
    assert.deepEqual(unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:00:00Z'), now: at('2024-01-01T01:41:00Z') }), { kind: 'tooMany' });
    assert.equal(unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:00:00Z'), now: at('2024-01-01T01:40:00Z') }).kind, 'due');
    assert.equal(unmetScheduleTimes({ schedule: everyMinute, earliest: at('2024-01-01T00:00:00Z'), now: at('2024-01-02T00:00:00Z'), startingDeadlineSeconds: 300 }).kind, 'due');
  });

  it('cron times find the last run of a span without walking it', () => {
    assert.equal(lastRunIn(everyMinute, at('2024-01-01T00:00:00Z'), at('2024-03-01T00:05:30Z'))?.toISOString(), '2024-03-01T00:05:00.000Z');
    assert.equal(lastRunIn(everyMinute, at('2024-01-01T00:05:00Z'), at('2024-01-01T00:05:30Z')), undefined);
    assert.equal(lastRunIn({ kind: 'every', seconds: 60 }, at('2024-01-01T00:00:00Z'), at('2024-01-01T00:02:30Z'))?.toISOString(), '2024-01-01T00:02:00.000Z');
  });

  it('cron times name Jobs by the minute of their run and print RFC 1123Z', () => {
    assert.equal(jobNameFor('hello', at('2024-01-01T00:01:00Z')), 'hello-28401121');
    assert.equal(rfc1123z(at('2024-01-01T00:01:00Z')), 'Mon, 01 Jan 2024 00:01:00 +0000');
  });
});
