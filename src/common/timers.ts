/** Runs `fire` after `ms`; returns a cancel function. Injectable so tests control time. */
export type Scheduler = (fire: () => void, ms: number) => () => void;

/** A timer that does not keep the process alive. */
export const realScheduler: Scheduler = (fire, ms) => {
  const timer = setTimeout(fire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Time for loops and timers: wall-clock milliseconds and one-shot timers on the same clock.
 * The site agent and its runtimes take everything they time from one of these (no
 * `Date.now()` or bare `setTimeout` there), and the control plane's timed controllers
 * (CronJobs) may be given one, so tests drive them with fake time. (`Clock` in clock.ts is
 * what the control plane stamps API objects with: a `Date`, and nanoseconds for events.)
 */
export interface Timers {
  now(): number;
  readonly schedule: Scheduler;
}

/** The process's clock and timers (timers keep the process alive; everything cancels them on close). */
export function systemTimers(): Timers {
  return {
    now: () => Date.now(),
    schedule: (fire, ms) => {
      const timer = setTimeout(fire, Math.max(0, ms));
      return () => clearTimeout(timer);
    },
  };
}
