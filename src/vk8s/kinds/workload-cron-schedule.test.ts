import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCronSchedule } from './workload-cron-schedule.js';
import { parseGoDuration } from './workload-go-duration.js';

describe('cron schedule', () => {
  it('accepts robfig standard specs and hands cron-parser an expression', () => {
    assert.deepEqual(parseCronSchedule('*/5 * * * *'), { kind: 'cron', expression: '*/5 * * * *' });
    assert.deepEqual(parseCronSchedule('  0  9 ? jan-mar MON-FRI '), { kind: 'cron', expression: '0 9 * jan-mar MON-FRI' });
    assert.deepEqual(parseCronSchedule('5/15 0-23/2 1,15 * 0'), { kind: 'cron', expression: '5/15 0-23/2 1,15 * 0' });
    assert.deepEqual(parseCronSchedule('@midnight'), { kind: 'cron', expression: '0 0 * * *' });
    assert.deepEqual(parseCronSchedule('@hourly'), { kind: 'cron', expression: '0 * * * *' });
    assert.deepEqual(parseCronSchedule('@every 1h30m'), { kind: 'every', seconds: 5400 });
    assert.deepEqual(parseCronSchedule('@every 300ms'), { kind: 'every', seconds: 1 });
  });

  it('refuses what robfig refuses, with its messages', () => {
    const cases: Array<[string, string]> = [
      ['', 'Empty spec string'],
      ['* * * *', 'Expected exactly 5 fields, found 4: * * * *'],
      ['0 0 0 * * *', 'Expected exactly 5 fields, found 6: 0 0 0 * * *'],
      ['0 24 * * *', 'End of range (24) above maximum (23): 24'],
      ['0 0 0 * *', 'Beginning of range (0) below minimum (1): 0'],
      ['0 5-2 * * *', 'Beginning of range (5) beyond end of range (2): 5-2'],
      ['0 1-2-3 * * *', 'Too many hyphens: 1-2-3'],
      ['*/2/3 * * * *', 'Too many slashes: */2/3'],
      ['*/0 * * * *', 'Step of range should be a positive number: */0'],
      ['0 0 L * *', 'Failed to parse int from L: strconv.Atoi: parsing "L": invalid syntax'],
      ['@every 1x', 'Failed to parse duration @every 1x: time: unknown unit x in duration 1x'],
      ['@every 5', 'Failed to parse duration @every 5: time: missing unit in duration 5'],
      ['@weekdays', 'Unrecognized descriptor: @weekdays'],
    ];
    for (const [spec, error] of cases) assert.deepEqual(parseCronSchedule(spec), { error }, spec);
  });

  it('parses Go durations', () => {
    assert.equal(parseGoDuration('1.5h'), 5400);
    assert.equal(parseGoDuration('2m3s'), 123);
    assert.equal(parseGoDuration('0'), 0);
    assert.deepEqual(parseGoDuration('h'), { error: 'time: invalid duration h' });
  });
});
