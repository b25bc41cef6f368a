import type { Timers } from '../common/timers.js';

/**
 * One timer for any number of keys (thousands of simulated pods): each key has at most one
 * wake time; a binary min-heap orders them and a single timer is armed for the earliest.
 * Times are rounded up to `resolutionMs` so neighbouring wakes fire together. Rescheduling
 * leaves the old heap entry behind; it is skipped when popped and swept when stale entries
 * outnumber live ones.
 */
export class WakeScheduler<K> {
  private readonly due = new Map<K, number>();
  private heap: Array<{ at: number; key: K }> = [];
  private armed: { at: number; cancel: () => void } | undefined;
  private closed = false;

  constructor(
    private readonly timers: Timers,
    private readonly onWake: (key: K, now: number) => void,
    private readonly resolutionMs = 10,
  ) {}

  get size(): number {
    return this.due.size;
  }

  /** Wakes `key` at `at` (epoch ms), replacing its earlier wake. */
  wake(key: K, at: number): void {
    if (this.closed) return;
    const rounded = Math.ceil(at / this.resolutionMs) * this.resolutionMs;
    if (this.due.get(key) === rounded) return;
    this.due.set(key, rounded);
    this.push({ at: rounded, key });
    if (this.heap.length > 2 * this.due.size + 1024) this.sweep();
    this.arm();
  }

  cancel(key: K): void {
    this.due.delete(key);
  }

  close(): void {
    this.closed = true;
    this.armed?.cancel();
    this.armed = undefined;
    this.due.clear();
    this.heap = [];
  }

  private fire(): void {
    this.armed = undefined;
    const now = this.timers.now();
    const ready: K[] = [];
    for (let top = this.heap[0]; top !== undefined && top.at <= now; top = this.heap[0]) {
      this.pop();
      if (this.due.get(top.key) !== top.at) continue;
      this.due.delete(top.key);
      ready.push(top.key);
    }
    for (const key of ready) {
      if (this.closed) return;
      this.onWake(key, now);
    }
    this.arm();
  }

  private arm(): void {
    while (this.heap[0] !== undefined && this.due.get(this.heap[0].key) !== this.heap[0].at) this.pop();
    const top = this.heap[0];
    if (top === undefined || this.closed) return;
    if (this.armed !== undefined && this.armed.at <= top.at) return;
    this.armed?.cancel();
    const at = top.at;
    this.armed = { at, cancel: this.timers.schedule(() => this.fire(), at - this.timers.now()) };
  }

  private sweep(): void {
    const live = this.heap.filter((e) => this.due.get(e.key) === e.at);
    this.heap = [];
    for (const entry of live) this.push(entry);
  }

  private push(entry: { at: number; key: K }): void {
    const heap = this.heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent];
      if (p === undefined || p.at <= entry.at) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = entry;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const l = heap[left];
      const r = heap[right];
      const child = r !== undefined && l !== undefined && r.at < l.at ? right : left;
      const c = heap[child];
      if (c === undefined || c.at >= last.at) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = last;
  }
}
