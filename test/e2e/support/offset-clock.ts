import { formatRfc3339Nano, type Clock } from '../../../src/server/clock.js';

/** The real clock moved forward by an offset the test controls. */
export interface OffsetClock extends Clock {
  /** Moves time forward by `ms` (never back: timestamps keep their order). */
  advance(ms: number): void;
}

/**
 * A clock that follows the system's (so leases, timers and the agents' real-time delays stay
 * coherent) plus an offset: a test jumps ahead to a CronJob's next minute instead of waiting.
 */
export function offsetClock(): OffsetClock {
  const wallNs = BigInt(Date.now()) * 1_000_000n;
  const monoNs = process.hrtime.bigint();
  let offsetNs = 0n;
  const nowNs = (): bigint => wallNs + (process.hrtime.bigint() - monoNs) + offsetNs;
  return {
    now: () => new Date(Number(nowNs() / 1_000_000n)),
    rfc3339Nano: () => formatRfc3339Nano(nowNs()),
    advance: (ms) => {
      if (ms < 0) throw new Error('offsetClock: time only moves forward');
      offsetNs += BigInt(Math.round(ms * 1e6));
    },
  };
}
