/** kubelet's crash-loop back-off of one container (its flowcontrol.Backoff entry). */
export interface RestartBackoff {
  readonly delayMs: number;
  /** When the delay was last raised (a restart). */
  readonly updatedAt: number;
}

const INITIAL_MS = 10_000;
const MAX_MS = 300_000;
/** An entry not raised for this long is forgotten (kubelet: twice the maximum), so a container that ran 10 min restarts at once. */
const FORGET_AFTER_MS = 2 * MAX_MS;

/**
 * When a container that ended at `finishedAt` may start again: at once without an entry (the
 * first crash) or with one not raised for 10 minutes; otherwise `finishedAt` plus the delay.
 */
export function restartWaitUntil(entry: RestartBackoff | undefined, finishedAt: number): number | undefined {
  if (entry === undefined || finishedAt - entry.updatedAt > FORGET_AFTER_MS) return undefined;
  return finishedAt + entry.delayMs;
}

/** The entry after a restart at `now`: 10 s at first (or after 10 quiet minutes), then doubled up to 5 min. */
export function nextRestartDelay(entry: RestartBackoff | undefined, now: number): RestartBackoff {
  if (entry === undefined || now - entry.updatedAt > FORGET_AFTER_MS) return { delayMs: INITIAL_MS, updatedAt: now };
  return { delayMs: Math.min(MAX_MS, entry.delayMs * 2), updatedAt: now };
}

/**
 * The delay a container waits after its `restarts`-th restart in a row, without the entry's
 * clock: 10 s doubled per restart, at most 5 min (the simulated runtime's back-off, whose
 * containers crash on a schedule rather than on their own).
 */
export function backOffAfterRestarts(restarts: number): number {
  return Math.min(INITIAL_MS * 2 ** Math.min(restarts, 10), MAX_MS);
}
