import type { WatchEvent } from './types.js';

/** One watch the sweep offers events to (the watch cache's subscriptions). */
export interface SweepTarget {
  /** The sequence number of the first event this watch has not been offered yet. */
  next: number;
  /**
   * Offers `events[from..to)` (the ones it has not had: revision order), then one flush;
   * returns how many of them it passed on (those outside its key range are not).
   */
  offer(events: readonly WatchEvent[], from: number, to: number): number;
}

/** What one pass of a sweep did, reported when it ends (metrics); a pass that visited no watch is not. */
export interface SweepPass {
  /** From the pass's start to its end, the yields to the event loop included (ms). */
  readonly durationMs: number;
  /** Watches that were passed at least one event: one flush (one write) each. */
  readonly flushes: number;
  /** Events passed on, summed over the watches. */
  readonly events: number;
}

/**
 * How long one slice of a sweep may run (ms) before it yields to the event loop. Measured at
 * 1,000 watches × 100 writes/s (`npm run bench -- vk8s --only watch`, delivery p99 of two runs
 * each): 0.5 ms → 32–33 ms, 1 → 31–33, 2 → 34–37, 5 → 39–41 (POST→201 p50 2.5, 3.4, 5.5,
 * 10.4 ms). The fan-out it replaced (all watches in one go, then a pause of a quarter of its
 * duration) gave 42–52 ms.
 */
export const DEFAULT_SLICE_MS = 1;

/**
 * The most events one visit offers a watch. A watch further behind gets the rest in the next
 * passes, so a pass stays short however far behind the watches are, and every watch moves
 * on a little in each: when clients read slowly (a starved client machine), one long pass
 * would otherwise dump the whole backlog on the first watches while the last ones wait for
 * it, and the events arriving meanwhile make the next pass longer still.
 */
export const MAX_EVENTS_PER_VISIT = 32;

/**
 * Delivers a watch cache's events to its watches, a little at a time: the single-threaded
 * counterpart of kube-apiserver's watcher goroutines, each of which writes every event
 * queued for it and then flushes once.
 *
 * A *pass* visits every watch in turn and offers it every event it has not had yet, in one
 * flush (one socket write). Events applied while a pass is under way reach the watches it
 * has not visited yet in the same pass, and the others in the next one, which starts at
 * once; when a pass ends with nothing new, the sweep stops until the next event. A pass
 * yields to the event loop after every `sliceMs` of work, so a fan-out to many watches never
 * holds up requests, commits and timers for longer than a slice: a write arriving during a
 * fan-out is committed within a slice or two, and its event joins the pass in progress.
 *
 * Under load the batching follows: the longer a pass, the more events each write carries,
 * and the fewer writes each event costs, so delivery latency stays near one pass rather than
 * growing with a backlog. A visit offers at most {@link MAX_EVENTS_PER_VISIT} events, so a
 * backlog (clients that could not read for a while) is worked off a part per pass for every
 * watch alike.
 */
export class FanOutSweep {
  /** Events not yet offered to every watch; `events[i]` has sequence number `base + i`. */
  private events: WatchEvent[] = [];
  private base = 0;
  /** Every watch has been offered the events before this sequence number (as of the last pass's end). */
  private floor = 0;
  /** The lowest position of the watches visited so far in the current pass. */
  private lowest = Number.POSITIVE_INFINITY;
  private cursor: Iterator<SweepTarget> | undefined;
  private running = false;
  private generation = 0;
  private passStartedAt = 0;
  private passVisits = 0;
  private passFlushes = 0;
  private passEvents = 0;

  /** `onPass` is told about each pass when it ends. */
  constructor(
    private readonly targets: ReadonlySet<SweepTarget>,
    private readonly sliceMs: number = DEFAULT_SLICE_MS,
    private readonly onPass?: (pass: SweepPass) => void,
  ) {}

  /** The sequence number the next event gets: a new watch has been offered everything before it. */
  get head(): number {
    return this.base + this.events.length;
  }

  /**
   * Queues an event for every watch. The sweep starts at the next tick, so the events a
   * commit applies in one go reach each watch together.
   */
  add(event: WatchEvent): void {
    this.events.push(event);
    if (this.running) return;
    this.running = true;
    const generation = this.generation;
    process.nextTick(() => this.sweep(generation));
  }

  /** Forgets every queued event and stops the sweep (the cache relisted or stopped). */
  reset(): void {
    this.base = this.head;
    this.events = [];
    this.floor = this.base;
    this.cursor = undefined;
    this.running = false;
    this.generation++;
  }

  private sweep(generation: number): void {
    if (generation !== this.generation) return;
    const deadline = performance.now() + this.sliceMs;
    for (;;) {
      if (this.cursor === undefined && !this.startPass()) {
        this.running = false;
        return;
      }
      const step = (this.cursor as Iterator<SweepTarget>).next();
      if (step.done === true) {
        this.cursor = undefined;
        this.floor = Math.min(this.lowest, this.head);
        if (this.passVisits > 0) this.onPass?.({ durationMs: performance.now() - this.passStartedAt, flushes: this.passFlushes, events: this.passEvents });
        continue;
      }
      this.visit(step.value);
      if (performance.now() >= deadline) {
        setImmediate(() => this.sweep(generation));
        return;
      }
    }
  }

  /** Drops what every watch has had and starts a pass if anything is left; false when idle. */
  private startPass(): boolean {
    this.events.splice(0, this.floor - this.base);
    this.base = this.floor;
    if (this.events.length === 0) return false;
    this.lowest = Number.POSITIVE_INFINITY;
    this.passStartedAt = performance.now();
    this.passVisits = 0;
    this.passFlushes = 0;
    this.passEvents = 0;
    // A Set's iterator stays valid while watches come and go: new ones are visited at the end
    // (already caught up), closed ones are skipped.
    this.cursor = this.targets.values();
    return true;
  }

  /** Offers the watch what it has not had, at most {@link MAX_EVENTS_PER_VISIT} events of it. */
  private visit(target: SweepTarget): void {
    this.passVisits++;
    const head = this.head;
    if (target.next < head) {
      const start = Math.max(target.next, this.base);
      const end = Math.min(head, start + MAX_EVENTS_PER_VISIT);
      target.next = end;
      const passed = target.offer(this.events, start - this.base, end - this.base);
      if (passed > 0) {
        this.passFlushes++;
        this.passEvents += passed;
      }
    }
    if (target.next < this.lowest) this.lowest = target.next;
  }
}
