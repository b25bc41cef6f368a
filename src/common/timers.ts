/** Runs `fire` after `ms`; returns a cancel function. Injectable so tests control time. */
export type Scheduler = (fire: () => void, ms: number) => () => void;

/** A timer that does not keep the process alive. */
export const realScheduler: Scheduler = (fire, ms) => {
  const timer = setTimeout(fire, ms);
  timer.unref();
  return () => clearTimeout(timer);
};

/**
 * Time as the agent sees it: wall-clock milliseconds (timestamps in statuses) and one-shot
 * timers. Injected everywhere so tests drive the agent with fake time.
 */
export interface SiteTimers {
  now(): number;
  readonly schedule: Scheduler;
}

/** The process's clock and timers (timers keep the process alive; everything cancels them on close). */
export function systemTimers(): SiteTimers {
  return {
    now: () => Date.now(),
    schedule: (fire, ms) => {
      const timer = setTimeout(fire, Math.max(0, ms));
      return () => clearTimeout(timer);
    },
  };
}
