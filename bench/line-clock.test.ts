import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineClock } from './line-clock.js';

test('delays of lines written after the start, a line split across chunks stamped when it completes', async () => {
  let now = 1000;
  const clock = new LineClock(2, { now: () => now });
  now = 1030;
  clock.data('990\n1005\n10');
  now = 1050;
  clock.data('20\nnot a stamp\n1040\n1045\n');
  await clock.done;
  // 990 was history (before the clock); 1005 read at 1030; 1020 completed at 1050; 1045 beyond the count.
  assert.deepEqual(clock.samples, [25, 30]);
});

test('skips the first lines and reads the stamp out of a CRI log line', () => {
  let now = 0;
  const clock = new LineClock(5, { now: () => now, skip: 1, stamp: (line) => line.split(' ').at(-1) });
  now = 100;
  clock.data('2026-11-27T23:00:00.000000000Z stdout F 10\n2026-11-27T23:00:00.000000000Z stdout F 20\n');
  assert.deepEqual(clock.samples, [80]);
});
