import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../common/testing/fake-timers.js';
import { WakeScheduler } from './wake-scheduler.js';

describe('WakeScheduler', () => {
  it('wake scheduler keeps one timer for many keys and fires them in time order', () => {
    const timers = fakeTimers(0);
    const fired: Array<[string, number]> = [];
    const wakes = new WakeScheduler<string>(timers, (key, now) => fired.push([key, now]));
    for (let i = 0; i < 1000; i++) wakes.wake(`k${i}`, 1000 + (i % 10) * 100);
    assert.equal(timers.pending().length, 1);
    timers.advance(1000);
    assert.equal(fired.length, 100);
    assert.ok(fired.every(([, now]) => now === 1000));
    timers.advance(900);
    assert.equal(fired.length, 1000);
    assert.equal(wakes.size, 0);
    assert.equal(timers.pending().length, 0);
  });

  it('wake scheduler replaces a key\'s wake and forgets cancelled keys', () => {
    const timers = fakeTimers(0);
    const fired: string[] = [];
    const wakes = new WakeScheduler<string>(timers, (key) => fired.push(key));
    wakes.wake('a', 500);
    wakes.wake('b', 300);
    wakes.wake('a', 100);
    wakes.wake('c', 200);
    wakes.cancel('c');
    timers.advance(150);
    assert.deepEqual(fired, ['a']);
    timers.advance(1000);
    assert.deepEqual(fired, ['a', 'b']);
  });

  it('wake scheduler fires keys a handler wakes again later, and nothing after close', () => {
    const timers = fakeTimers(0);
    const fired: number[] = [];
    const wakes = new WakeScheduler<string>(timers, (key, now) => {
      fired.push(now);
      if (fired.length < 3) wakes.wake(key, now + 50);
    });
    wakes.wake('a', 10);
    timers.advance(1000);
    assert.deepEqual(fired, [10, 60, 110]);
    wakes.wake('a', 2000);
    wakes.close();
    timers.advance(5000);
    assert.equal(fired.length, 3);
  });
});
