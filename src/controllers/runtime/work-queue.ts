import { realScheduler, type Scheduler } from '../../common/timers.js';

export interface WorkQueueOptions {
  /** The first retry's delay; each further failure doubles it (default 5 ms, as client-go). */
  readonly baseDelayMs?: number;
  /** The longest retry delay (default 1000 s, as client-go). */
  readonly maxDelayMs?: number;
  readonly schedule?: Scheduler;
  /** Milliseconds on a monotonic clock, to keep the earliest of two delays (default performance.now). */
  readonly now?: () => number;
}

/** client-go's ItemExponentialFailureRateLimiter: `base · 2^failures`, at most `max`. */
export function backoffDelay(failures: number, baseMs: number, maxMs: number): number {
  return Math.min(baseMs * 2 ** Math.min(failures, 60), maxMs);
}

/**
 * A controller's work queue (client-go's rate-limited workqueue, as controller-runtime uses
 * it): a key added several times before a worker takes it is processed once; a key is
 * handed to one worker at a time — added again while processing, it is queued once more
 * when that worker calls {@link done}; {@link addRateLimited} retries a failed key after an
 * exponential backoff that {@link forget} resets.
 */
export class WorkQueue<K> {
  private readonly queue: K[] = [];
  /** Keys waiting to be processed (queued, or to be queued again after processing). */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly failures = new Map<K, number>();
  /** Delayed additions: the earliest time per key and its cancel function. */
  private readonly delayed = new Map<K, { readonly at: number; readonly cancel: () => void }>();
  private readonly waiters: Array<(key: K | undefined) => void> = [];
  private shuttingDown = false;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly schedule: Scheduler;
  private readonly now: () => number;

  constructor(options: WorkQueueOptions = {}) {
    this.baseDelayMs = options.baseDelayMs ?? 5;
    this.maxDelayMs = options.maxDelayMs ?? 1_000_000;
    this.schedule = options.schedule ?? realScheduler;
    this.now = options.now ?? (() => performance.now());
  }

  /** Queues `key` unless it is already waiting; a key being processed is queued after {@link done}. */
  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      waiter(key);
    } else {
      this.queue.push(key);
    }
  }

  /** Queues `key` after `ms`; a key already delayed keeps the earlier of the two times. */
  addAfter(key: K, ms: number): void {
    if (this.shuttingDown) return;
    if (ms <= 0) return this.add(key);
    const at = this.now() + ms;
    const existing = this.delayed.get(key);
    if (existing !== undefined && existing.at <= at) return;
    existing?.cancel();
    const cancel = this.schedule(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, cancel });
  }

  /** Queues `key` after its backoff, and counts the failure. */
  addRateLimited(key: K): void {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    this.addAfter(key, backoffDelay(failures, this.baseDelayMs, this.maxDelayMs));
  }

  /** The key succeeded: its backoff starts over. */
  forget(key: K): void {
    this.failures.delete(key);
  }

  /** How many times `key` failed since it was last forgotten. */
  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key, which is then being processed until {@link done}; undefined once shut down. */
  get(): Promise<K | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The worker finished `key`; if it was added meanwhile, it is queued again. */
  done(key: K): void {
    this.processing.delete(key);
    if (!this.dirty.has(key)) return;
    this.dirty.delete(key);
    this.add(key);
  }

  /** Keys waiting for a worker (not the delayed or the ones being processed). */
  get length(): number {
    return this.queue.length;
  }

  /** Stops handing out keys: waiting workers get undefined, delayed keys are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { cancel } of this.delayed.values()) cancel();
    this.delayed.clear();
    this.queue.length = 0;
    this.dirty.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }
}
