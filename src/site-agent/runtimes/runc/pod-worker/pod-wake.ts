import type { Timers } from '../../../../common/timers.js';

/** One timer that syncs a pod again at the earliest time any step asked for (a back-off's end, a retry). */
export class PodWake {
  private at: number | undefined;
  private cancel: (() => void) | undefined;

  constructor(
    private readonly timers: Timers,
    private readonly fire: () => void,
  ) {}

  /** Wakes at `at` unless an earlier wake is pending. */
  request(at: number): void {
    if (this.at !== undefined && this.at <= at) return;
    this.cancel?.();
    this.at = at;
    this.cancel = this.timers.schedule(() => {
      this.at = undefined;
      this.cancel = undefined;
      this.fire();
    }, Math.max(0, at - this.timers.now()));
  }

  close(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.at = undefined;
  }
}
