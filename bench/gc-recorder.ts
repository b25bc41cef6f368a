import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

/** This process's garbage collections while a piece of work ran: counts and pauses (ms). */
export interface GcActivity {
  readonly major: number;
  readonly majorPauseMs: number;
  readonly minor: number;
  readonly minorPausesMs: readonly number[];
}

/**
 * Runs `work` while recording this process's GC pauses (node's `gc` performance entries). A
 * major collection's entry is its final pause only; the incremental marking before it runs
 * on the event loop too, unreported, whenever V8's concurrent markers get no CPU.
 */
export async function withGcActivity<T>(work: () => Promise<T>): Promise<{ result: T; gc: GcActivity }> {
  const major: number[] = [];
  const minor: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) major.push(entry.duration);
      else if (kind === constants.NODE_PERFORMANCE_GC_MINOR) minor.push(entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  try {
    const result = await work();
    return { result, gc: { major: major.length, majorPauseMs: major.reduce((a, b) => a + b, 0), minor: minor.length, minorPausesMs: minor.sort((a, b) => a - b) } };
  } finally {
    observer.disconnect();
  }
}
