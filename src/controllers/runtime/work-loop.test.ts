import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../../common/testing/fake-timers.js';
import type { Scheduler } from '../../common/timers.js';
import { createLogger } from '../../observability/logger.js';
import { startWorkLoop } from './work-loop.js';

describe('work loop', () => {
  const keepAlive: Scheduler = (fire, ms) => {
    const timer = setTimeout(fire, ms);
    return () => clearTimeout(timer);
  };

  it('work loop retries a failing key with backoff and forgets it after success', async () => {
    const seen: string[] = [];
    let failuresLeft = 2;
    const results: string[] = [];
    let succeeded = (): void => {};
    const flakySucceeded = new Promise<void>((resolve) => (succeeded = resolve));
    const loop = startWorkLoop<string>({
      workers: 2,
      logger: createLogger({ level: 'silent' }),
      queue: { baseDelayMs: 1, maxDelayMs: 1, schedule: keepAlive },
      onResult: (r) => results.push(r),
      reconcile: (key) => {
        seen.push(key);
        if (key === 'flaky' && failuresLeft-- > 0) return Promise.reject(new Error('boom'));
        if (key === 'flaky') queueMicrotask(succeeded);
        return Promise.resolve();
      },
    });
    loop.add('ok');
    loop.add('flaky');
    await flakySucceeded;
    await loop.stop();
    assert.deepEqual(seen.filter((k) => k === 'flaky').length, 3);
    assert.deepEqual(results.filter((r) => r === 'error').length, 2);
    assert.equal(loop.retries('flaky'), 0);
  });

  it('work loop looks at a key again after the delay a successful reconcile asks for', async () => {
    const time = fakeTimers(0);
    const seen: string[] = [];
    const loop = startWorkLoop<string>({
      workers: 1,
      logger: createLogger({ level: 'silent' }),
      queue: { schedule: time.schedule, now: () => time.now() },
      reconcile: (key) => {
        seen.push(key);
        return Promise.resolve(seen.length === 1 ? { requeueAfterMs: 30 } : undefined);
      },
    });
    loop.add('k');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['k']);
    assert.deepEqual(time.pending(), [30]);
    time.advance(30);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, ['k', 'k']);
    assert.deepEqual(time.pending(), [], 'the second reconcile asked for nothing');
    await loop.stop();
  });
});
