import { formatRfc3339Nano, type Clock } from '../../common/clock.js';
import { fakeTimers, type FakeTimers } from '../../common/testing/fake-timers.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';

/** One fake timeline for a controller test: its clock and its work queue's timers. */
export interface FakeControllerTime {
  /** Moves only when the test advances it (`timers.advance`, which fires what is due). */
  readonly timers: FakeTimers;
  /** The controllers' clock, reading the timers' time. */
  readonly clock: Clock;
  /** A controller's `queue` option: its timers on this timeline (but retry backoffs, see fakeControllerTime). */
  readonly queue: WorkQueueOptions;
}

/**
 * Fake time for controllers (common/testing/fake-timers): delays from `realBelowMs` up (a
 * CronJob's next run, a Job's deadline) wait until the test advances time; shorter ones
 * (retry backoff) run on real timers, so a failed reconcile still retries while the test waits.
 */
export function fakeControllerTime(start: Date, realBelowMs = 1000): FakeControllerTime {
  const timers = fakeTimers(start.getTime());
  return {
    timers,
    clock: {
      now: () => new Date(timers.now()),
      rfc3339Nano: () => formatRfc3339Nano(BigInt(Math.round(timers.now() * 1e6))),
    },
    queue: {
      now: () => timers.now(),
      schedule: (fire, ms) => {
        if (ms >= realBelowMs) return timers.schedule(fire, ms);
        const timer = setTimeout(fire, ms);
        return () => clearTimeout(timer);
      },
    },
  };
}
