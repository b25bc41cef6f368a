/**
 * One pod's work queue (kubelet's per-pod worker goroutine): runs `work` once per trigger,
 * never two at a time; triggers while it runs make it run once more after (they coalesce).
 * A failure is given to `failed` and the queue goes on.
 */
export class SyncQueue {
  private running: Promise<void> = Promise.resolve();
  private queued = false;
  private stopped = false;

  constructor(
    private readonly work: () => Promise<void>,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Runs the work now, or once more after the run under way. */
  trigger(): void {
    if (this.queued || this.stopped) return;
    this.queued = true;
    this.running = this.running.then(async () => {
      this.queued = false;
      if (this.stopped) return;
      try {
        await this.work();
      } catch (error) {
        this.failed(error);
      }
    });
  }

  /** Settles once the runs triggered so far have ended. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Runs nothing more (a run under way finishes). */
  stop(): void {
    this.stopped = true;
  }
}
