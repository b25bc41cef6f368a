import { openWatch, type KubeWatchEvent, type WatchSelection, type WatchSource } from './open-watch.js';

export type { KubeWatchEvent, WatchSource } from './open-watch.js';

export interface WatchQuery extends WatchSelection {
  readonly signal: AbortSignal;
}

/**
 * {@link openWatch} as an async generator, for consumers that pull: the same events and
 * semantics, queued until read. The generator ends when the watch ends, the signal aborts, or
 * the consumer stops; a consumer that does not read is closed by the watch cache like any
 * slow watch. (HTTP watch streams use openWatch directly.)
 */
export async function* watchObjects(source: WatchSource, query: WatchQuery): AsyncGenerator<KubeWatchEvent> {
  const queue: KubeWatchEvent[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  let drainWaiter: (() => void) | undefined;
  const signal = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const watch = openWatch(source, query, {
    get backlog() {
      return queue.length;
    },
    event: (event) => {
      queue.push(event);
      signal();
    },
    flush: () => undefined,
    drained: () => new Promise<void>((resolve) => (queue.length === 0 ? resolve() : (drainWaiter = resolve))),
    end: () => {
      ended = true;
      signal();
    },
  });
  const abort = (): void => {
    ended = true;
    signal();
  };
  query.signal.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const event = queue.shift();
      if (event !== undefined) {
        if (queue.length === 0 && drainWaiter !== undefined) {
          drainWaiter();
          drainWaiter = undefined;
        }
        yield event;
        continue;
      }
      if (ended || query.signal.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    query.signal.removeEventListener('abort', abort);
    watch.close();
  }
}
