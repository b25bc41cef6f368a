import type { Timers } from '../timers.js';

export interface FakeTimers extends Timers {
  /** Moves time forward, firing due timers in time order (timers they set fire too when due); returns how many fired. */
  advance(ms: number): number;
  /** Milliseconds until each pending timer. */
  pending(): number[];
}

/** Timers that fire only when a test advances time. */
export function fakeTimers(start = Date.UTC(2020, 0, 1)): FakeTimers {
  let now = start;
  let sequence = 0;
  const timers: Array<{ at: number; seq: number; fire: () => void; cancelled: boolean }> = [];
  const next = (limit: number): (typeof timers)[number] | undefined =>
    timers.filter((t) => !t.cancelled && t.at <= limit).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
  return {
    now: () => now,
    schedule: (fire, ms) => {
      const timer = { at: now + Math.max(0, ms), seq: sequence++, fire, cancelled: false };
      timers.push(timer);
      return () => void (timer.cancelled = true);
    },
    advance(ms) {
      const until = now + ms;
      let fired = 0;
      for (let timer = next(until); timer !== undefined; timer = next(until)) {
        now = Math.max(now, timer.at);
        timer.cancelled = true;
        timer.fire();
        fired++;
      }
      now = until;
      for (let i = timers.length - 1; i >= 0; i--) if (timers[i]?.cancelled === true) timers.splice(i, 1);
      return fired;
    },
    pending: () => timers.filter((t) => !t.cancelled).map((t) => t.at - now),
  };
}
