import type { Scheduler } from '../../../common/timers.js';

/**
 * A work-queue scheduler for tests on fake time: delays shorter than `realBelowMs` (retry
 * backoff) run on real timers, so a failed reconcile still retries; longer ones (a
 * CronJob's next run, a Job's deadline) wait until the test moves its clock and calls
 * {@link fireDue}.
 */
export class FakeTimers {
  private timers: Array<{ readonly at: number; readonly fire: () => void; cancelled: boolean }> = [];

  constructor(
    private readonly now: () => number,
    private readonly realBelowMs = 1000,
  ) {}

  readonly schedule: Scheduler = (fire, ms) => {
    if (ms < this.realBelowMs) {
      const timer = setTimeout(fire, ms);
      return () => clearTimeout(timer);
    }
    const timer = { at: this.now() + ms, fire, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };

  /** Fires every fake timer due by now; returns how many. */
  fireDue(): number {
    const now = this.now();
    const due = this.timers.filter((t) => !t.cancelled && t.at <= now);
    this.timers = this.timers.filter((t) => !t.cancelled && t.at > now);
    for (const timer of due) timer.fire();
    return due.length;
  }

  /** When the pending fake timers fire (ms on the test clock), earliest first. */
  get pending(): number[] {
    return this.timers.filter((t) => !t.cancelled).map((t) => t.at).sort((a, b) => a - b);
  }
}
