import type { Scheduler, Timers } from '../../../src/common/timers.js';
import { formatRfc3339Nano, type Clock } from '../../../src/common/clock.js';

/** The real clock moved forward by an offset the test controls, with timers that follow it. */
export interface OffsetClock extends Clock {
  /** Moves time forward by `ms` (never back: timestamps keep their order); timers now due fire at once. */
  advance(ms: number): void;
  /** Timers on this clock (ControlPlaneOptions.clockTimers): `schedule` fires after `ms` of this clock's time, `now` in ms. */
  readonly timers: Timers;
}

/**
 * A clock that follows the system's (so leases, timers and the agents' real-time delays stay
 * coherent) plus an offset: a test jumps ahead to a CronJob's next minute instead of waiting,
 * and the timers set on this clock that the jump passed fire then.
 */
export function offsetClock(): OffsetClock {
  const wallNs = BigInt(Date.now()) * 1_000_000n;
  const monoNs = process.hrtime.bigint();
  let offsetNs = 0n;
  const nowNs = (): bigint => wallNs + (process.hrtime.bigint() - monoNs) + offsetNs;
  const nowMs = (): number => Number(nowNs() / 1_000_000n);
  const pending = new Set<{ readonly at: number; readonly fire: () => void; readonly timer: NodeJS.Timeout }>();

  const schedule: Scheduler = (fire, ms) => {
    const entry = {
      at: nowMs() + ms,
      fire,
      timer: setTimeout(() => {
        pending.delete(entry);
        fire();
      }, ms),
    };
    entry.timer.unref();
    pending.add(entry);
    return () => {
      clearTimeout(entry.timer);
      pending.delete(entry);
    };
  };

  return {
    now: () => new Date(nowMs()),
    rfc3339Nano: () => formatRfc3339Nano(nowNs()),
    advance: (ms) => {
      if (ms < 0) throw new Error('offsetClock: time only moves forward');
      offsetNs += BigInt(Math.round(ms * 1e6));
      const now = nowMs();
      for (const entry of [...pending].filter((e) => e.at <= now).sort((a, b) => a.at - b.at)) {
        clearTimeout(entry.timer);
        pending.delete(entry);
        entry.fire();
      }
    },
    timers: { schedule, now: nowMs },
  };
}
