import type { StoreError } from './errors.js';
import type { WatchEvent } from './types.js';

/**
 * The consumer side every backend's watch shares: a queue of events, an error that ends the
 * watch after the queued events are read, and a way to end it early (abort or `return()`).
 * A backend says how to get more events when the queue runs dry ({@link refill}) and what to
 * release when the watch ends ({@link release}).
 */
export abstract class WatchIterator implements AsyncIterableIterator<WatchEvent> {
  private readonly queue: WatchEvent[] = [];
  private failure: StoreError | undefined;
  private finished = false;
  private wake: (() => void) | undefined;

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
      if (this.refill()) await new Promise<void>((resolve) => (this.wake = resolve));
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
