import type { StoreError } from './errors.js';
import type { Revision, WatchEvent } from './types.js';

/**
 * The consumer side every backend's watch shares: a queue of events, an error that ends the
 * watch after the queued events are read, and a way to end it early (abort or `return()`).
 * A backend says how to get more events when the queue runs dry ({@link refill}) and what to
 * release when the watch ends ({@link release}). A backend that knows how far it has handed
 * events over says so with {@link progressed}; the consumer hears it (WatchOptions.onProgress)
 * once it has taken every event before that point.
 */
export abstract class WatchIterator implements AsyncIterableIterator<WatchEvent> {
  private readonly queue: WatchEvent[] = [];
  private failure: StoreError | undefined;
  private finished = false;
  private wake: (() => void) | undefined;
  private progressListener: ((revision: Revision) => void) | undefined;
  /** Every event up to this revision is in the queue or taken. */
  private progress: Revision = 0;
  private reported: Revision = 0;

  /**
   * Called when the queue is empty and the watch goes on. Fill the queue now and return
   * false to look again, or arrange for events (or a failure) to arrive and return true to wait.
   */
  protected abstract refill(): boolean;

  /** Release what the watch holds (a hub registration, an etcd watcher). Called once it ends. */
  protected abstract release(): void;

  protected get queued(): number {
    return this.queue.length;
  }

  protected get ended(): boolean {
    return this.finished || this.failure !== undefined;
  }

  protected push(event: WatchEvent): void {
    this.queue.push(event);
    this.signal();
  }

  /** Ends the watch with an error, delivered after the events already queued. */
  fail(error: StoreError): void {
    if (this.ended) return;
    this.failure = error;
    this.release();
    this.signal();
  }

  /** Ends the watch now; the iteration completes normally. */
  finish(): void {
    if (this.finished) return;
    const wasFailed = this.failure !== undefined;
    this.finished = true;
    if (!wasFailed) this.release();
    this.signal();
  }

  /** Ends the watch when `signal` aborts (at once if it already has). */
  endOn(signal: AbortSignal | undefined): this {
    if (signal === undefined) return this;
    if (signal.aborted) this.finish();
    else signal.addEventListener('abort', () => this.finish(), { once: true });
    return this;
  }

  /** Reports progress to `listener` (WatchOptions.onProgress). */
  reportProgressTo(listener: ((revision: Revision) => void) | undefined): this {
    this.progressListener = listener;
    return this;
  }

  /**
   * The backend has queued every event up to `revision`. The listener hears it at once when
   * the consumer is waiting with nothing queued (it has taken every earlier event), else when
   * the consumer next drains the queue.
   */
  protected progressed(revision: Revision): void {
    if (revision <= this.progress) return;
    this.progress = revision;
    if (this.wake !== undefined && this.queue.length === 0) this.reportProgress();
  }

  private reportProgress(): void {
    if (this.progress <= this.reported || this.ended) return;
    this.reported = this.progress;
    this.progressListener?.(this.progress);
  }

  protected signal(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async next(): Promise<IteratorResult<WatchEvent>> {
    for (;;) {
      if (this.finished) return { done: true, value: undefined };
      const event = this.queue.shift();
      if (event !== undefined) return { done: false, value: event };
      if (this.failure !== undefined) {
        this.finished = true;
        throw this.failure;
      }
      if (this.refill()) {
        this.reportProgress();
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    }
  }

  return(): Promise<IteratorResult<WatchEvent>> {
    this.finish();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
