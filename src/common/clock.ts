/** Wall-clock time, injectable so tests control it. */
export interface Clock {
  now(): Date;
  /** RFC 3339 with nanoseconds, e.g. `2025-12-06T00:13:14.390238378Z`. */
  rfc3339Nano(): string;
}

/** The system clock, with sub-millisecond digits from the monotonic clock. */
export function systemClock(): Clock {
  const wallNs = BigInt(Date.now()) * 1_000_000n;
  const monoNs = process.hrtime.bigint();
  const nowNs = (): bigint => wallNs + (process.hrtime.bigint() - monoNs);
  return {
    now: () => new Date(Number(nowNs() / 1_000_000n)),
    rfc3339Nano: () => formatRfc3339Nano(nowNs()),
  };
}

export function formatRfc3339Nano(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, `.${fraction}Z`);
}

/** A clock that moves only when told to (tests). */
export function fakeClock(start: Date): Clock & { advance(ms: number): void } {
  let ns = BigInt(start.getTime()) * 1_000_000n;
  return {
    now: () => new Date(Number(ns / 1_000_000n)),
    rfc3339Nano: () => formatRfc3339Nano(ns),
    advance: (ms: number) => {
      ns += BigInt(Math.round(ms * 1e6));
    },
  };
}
