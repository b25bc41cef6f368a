/**
 * A queue read as an async iterable (terminal sizes arriving on a tunnel stream): `push`
 * never blocks; at most `limit` items wait (older ones are dropped: only the latest size
 * matters); `end` finishes the iteration once the waiting items are read.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  constructor(private readonly limit = 16) {}

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    if (this.items.length > this.limit) this.items.shift();
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
