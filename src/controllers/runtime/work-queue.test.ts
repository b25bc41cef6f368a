import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../../common/testing/fake-timers.js';
import { backoffDelay, WorkQueue } from './work-queue.js';

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
    const time = fakeTimers(0);
    const queue = new WorkQueue<string>({ baseDelayMs: 10, maxDelayMs: 50, schedule: time.schedule, now: () => time.now() });
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
    const time = fakeTimers(0);
    const queue = new WorkQueue<string>({ schedule: time.schedule, now: () => time.now() });
    queue.addAfter('k', 100);
    queue.shutDown();
    assert.deepEqual(time.pending(), []);
  });
});
