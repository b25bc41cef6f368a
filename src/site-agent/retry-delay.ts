/** Reconnect back-off: 500 ms doubling per failed attempt, at most `maxMs` (default 30 s), spread ±20 % by `random`. */
export function retryDelayMs(attempt: number, random: () => number, maxMs = 30_000): number {
  const base = Math.min(500 * 2 ** Math.max(0, Math.min(attempt - 1, 10)), maxMs);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Resolves after `ms` of the scheduler's time, or at once when `signal` aborts. */
export function sleep(schedule: (fire: () => void, ms: number) => () => void, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const cancel = schedule(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      cancel();
      resolve();
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
