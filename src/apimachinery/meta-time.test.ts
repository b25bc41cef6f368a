import assert from 'node:assert/strict';
import { test } from 'node:test';
import { metav1Time } from './meta-time.js';

test('metav1Time writes whole seconds in UTC and drops the fraction', () => {
  assert.equal(metav1Time(Date.UTC(2026, 11, 7, 20, 1, 2, 999)), '2026-12-07T20:01:02Z');
  assert.equal(metav1Time(new Date('2026-12-07T21:01:02.5+01:00')), '2026-12-07T20:01:02Z');
  assert.equal(metav1Time(0), '1970-01-01T00:00:00Z');
});

test('metav1Time of a time before 1970 floors towards the earlier second, as Go truncates', () => {
  assert.equal(metav1Time(-1), '1969-12-31T23:59:59Z');
});
