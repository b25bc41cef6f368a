import type { WatchEvent } from '../types.js';

/**
 * Reads `count` events from a watch, failing after `timeoutMs`. The iterator is left open so
 * the caller can read more; call `iterator.return()` (or abort) to end it.
 */
export async function takeEvents(
  iterator: AsyncIterator<WatchEvent>,
  count: number,
  timeoutMs = 10_000,
): Promise<WatchEvent[]> {
  const events: WatchEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (events.length < count) {
    const remaining = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms waiting for event ${events.length + 1} of ${count}`)),
        Math.max(remaining, 0),
      );
    });
    try {
      const next = await Promise.race([iterator.next(), timeout]);
      if (next.done === true) throw new Error(`watch ended after ${events.length} of ${count} events`);
      events.push(next.value);
    } finally {
      clearTimeout(timer);
    }
  }
  return events;
}

/** Polls `check` every 5 ms until it holds; fails the test after `timeoutMs` naming `what`. */
export async function eventually(check: () => boolean, what = 'the condition', timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A small seeded PRNG (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
