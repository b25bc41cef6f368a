/**
 * One timer per watch, restarted each time the watch waits for an event: {@link race}
 * resolves to 'timer' when the wait lasts the whole interval. (A timer and an abort listener
 * per event cost more than the rest of a watch's work for that event.)
 */
export class IdleTimer {
  private wake: ((value: 'timer') => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(ms: number) {
    this.timer = setTimeout(() => this.wake?.('timer'), ms);
  }

  race<T>(promise: Promise<T>): Promise<T | 'timer'> {
    this.timer.refresh();
    return new Promise((resolve, reject) => {
      this.wake = resolve;
      promise.then(resolve, (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))));
    });
  }

  stop(): void {
    clearTimeout(this.timer);
    this.wake = undefined;
  }
}
