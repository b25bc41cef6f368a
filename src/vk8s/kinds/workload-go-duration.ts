/**
 * Go's time.ParseDuration (as of Go 1.13, which built kube-apiserver 1.17): `1h30m`, `1.5s`,
 * `300ms`; errors worded like Go's. Used by CronJob's `@every <duration>` schedules.
 */

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  ns: 1e-9,
  us: 1e-6,
  µs: 1e-6,
  μs: 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/** Seconds (fractional), or the Go error text. */
export function parseGoDuration(text: string): number | { error: string } {
  const invalid = { error: `time: invalid duration ${text}` };
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return invalid;
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    if (whole === '' && (fraction == null || fraction === '')) return invalid;
    rest = rest.slice(number?.[0].length ?? 0);
    const unit = /^[^\d.]*/.exec(rest)?.[0] ?? '';
    if (unit === '') return { error: `time: missing unit in duration ${text}` };
    const scale = UNIT_SECONDS[unit];
    if (scale == null) return { error: `time: unknown unit ${unit} in duration ${text}` };
    rest = rest.slice(unit.length);
    total += Number(`${whole === '' ? '0' : whole}.${fraction ?? ''}0`) * scale;
  }
  // Go durations are int64 nanoseconds.
  if (total * 1e9 > Number.MAX_SAFE_INTEGER * 1024) return invalid;
  return sign * total;
}
