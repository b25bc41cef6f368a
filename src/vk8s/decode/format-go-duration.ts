const UNITS: ReadonlyArray<readonly [string, number]> = [['ns', 1], ['µs', 1e3], ['ms', 1e6]];

/** A nanosecond count as Go's `time.Duration.String()` writes it: `1h2m3.5s`, `1.5ms`, `0s`. */
export function formatGoDuration(nanoseconds: number): string {
  if (nanoseconds === 0) return '0s';
  const sign = nanoseconds < 0 ? '-' : '';
  const ns = Math.abs(nanoseconds);
  if (ns < 1e9) {
    const [unit, scale] = ns < 1e3 ? UNITS[0]! : ns < 1e6 ? UNITS[1]! : UNITS[2]!;
    return `${sign}${decimal(ns, scale)}${unit}`;
  }
  const hours = Math.floor(ns / 3.6e12);
  const minutes = Math.floor((ns % 3.6e12) / 6e10);
  const seconds = decimal(ns % 6e10, 1e9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** `value / scale` with the fraction's trailing zeros dropped. */
function decimal(value: number, scale: number): string {
  const whole = Math.floor(value / scale);
  const fraction = value % scale;
  if (fraction === 0) return String(whole);
  const digits = String(scale).length - 1;
  return `${whole}.${String(fraction).padStart(digits, '0').replace(/0+$/, '')}`;
}
