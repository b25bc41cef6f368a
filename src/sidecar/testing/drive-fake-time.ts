import type { FakeTimers } from '../../common/testing/fake-timers.js';

/**
 * Moves fake time forward to `until`, one due timer at a time, letting the work each timer
 * starts (`settled`) finish before the next: requests take no fake time.
 */
export async function driveFakeTime(timers: FakeTimers, until: number, settled: () => Promise<void>): Promise<void> {
  await settled();
  for (;;) {
    const next = Math.min(...timers.pending());
    if (!Number.isFinite(next) || timers.now() + next > until) break;
    timers.advance(Math.max(0, next));
    await settled();
  }
  timers.advance(until - timers.now());
  await settled();
}
