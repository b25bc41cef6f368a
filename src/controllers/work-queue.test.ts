import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { runWorkers } from './run-workers.js';
import { backoffDelay, WorkQueue } from './work-queue.js';
import { type Scheduler } from '../common/timers.js';

/** A scheduler whose timers fire only when the test says so. */
function manualTime(): { schedule: Scheduler; now: () => number; advance(ms: number): void; pending(): number[] } {
  let now = 0;
  const timers: Array<{ at: number; fire: () => void; cancelled: boolean }> = [];
  return {
    now: () => now,
    schedule: (fire, ms) => {
      const timer = { at: now + ms, fire, cancelled: false };
      timers.push(timer);
      return () => void (timer.cancelled = true);
    },
    advance(ms) {
      now += ms;
      for (const timer of timers.filter((t) => !t.cancelled && t.at <= now)) {
        timer.cancelled = true;
        timer.fire();
      }
    },
    pending: () => timers.filter((t) => !t.cancelled).map((t) => t.at - now),
  };
}

describe('WorkQueue', () => {
  it('work queue deduplicates keys added before a worker takes them, in order', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    assert.equal(queue.length, 2);
    assert.equal(await queue.get(), 'a');
    assert.equal(await queue.get(), 'b');
    assert.equal(queue.length, 0);
  });

  it('work queue hands a key to one worker at a time and requeues it once when added meanwhile', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    assert.equal(await queue.get(), 'a');
    queue.add('a');
    queue.add('a');
    assert.equal(queue.length, 0, 'not queued while being processed');
    queue.done('a');
    assert.equal(queue.length, 1);
    assert.equal(await queue.get(), 'a');
    queue.done('a');
    assert.equal(queue.length, 0);
  });

  it('work queue wakes a waiting worker and ends waiting workers on shutdown', async () => {
    const queue = new WorkQueue<string>();
    const first = queue.get();
    queue.add('x');
    assert.equal(await first, 'x');
    const second = queue.get();
    queue.shutDown();
    assert.equal(await second, undefined);
    queue.add('y');
    assert.equal(await queue.get(), undefined, 'nothing is added after shutdown');
  });

  it('work queue backs off exponentially per key until forgotten', () => {
    const time = manualTime();
    const queue = new WorkQueue<string>({ baseDelayMs: 10, maxDelayMs: 50, schedule: time.schedule, now: time.now });
    queue.addRateLimited('k');
    assert.deepEqual(time.pending(), [10]);
    time.advance(10);
    assert.equal(queue.length, 1);
    queue.addRateLimited('k');
    queue.addRateLimited('k');
    assert.deepEqual(time.pending(), [20], 'the earlier of two delays wins');
    assert.equal(queue.retries('k'), 3);
    queue.forget('k');
    assert.equal(queue.retries('k'), 0);
    assert.deepEqual([backoffDelay(0, 10, 50), backoffDelay(2, 10, 50), backoffDelay(3, 10, 50), backoffDelay(99, 10, 50)], [10, 40, 50, 50]);
  });

  it('work queue drops delayed keys on shutdown', () => {
    const time = manualTime();
    const queue = new WorkQueue<string>({ schedule: time.schedule, now: time.now });
    queue.addAfter('k', 100);
    queue.shutDown();
    assert.deepEqual(time.pending(), []);
  });
});

describe('runWorkers', () => {
  it('run workers retries a failing key with backoff and forgets it after success', async () => {
    const keepAlive: Scheduler = (fire, ms) => {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    };
    const queue = new WorkQueue<string>({ baseDelayMs: 1, maxDelayMs: 1, schedule: keepAlive });
    const seen: string[] = [];
    let failuresLeft = 2;
    const results: string[] = [];
    const running = runWorkers(queue, {
      workers: 2,
      logger: createLogger({ level: 'silent' }),
      onResult: (r) => results.push(r),
      reconcile: (key) => {
        seen.push(key);
        if (key === 'flaky' && failuresLeft-- > 0) return Promise.reject(new Error('boom'));
        if (key === 'flaky') queueMicrotask(() => queue.shutDown());
        return Promise.resolve();
      },
    });
    queue.add('ok');
    queue.add('flaky');
    await running;
    assert.deepEqual(seen.filter((k) => k === 'flaky').length, 3);
    assert.deepEqual(results.filter((r) => r === 'error').length, 2);
    assert.equal(queue.retries('flaky'), 0);
  });
});
