/**
 * apimachinery's `duration.HumanDuration` as of Kubernetes 1.17 (the Age cell): two
 * significant units at most, coarser as the duration grows — `59s`, `119s`, `2m`, `9m59s`,
 * `10m`, `179m`, `3h`, `7h59m`, `8h`, `47h`, `2d`, `7d23h`, `8d`, `729d`, `2y0d`, `7y364d`,
 * `8y`. Slightly negative durations (clock skew under 2s) read `0s`; more is `<invalid>`.
 * (1.17 still prints `2y0d` for exactly two years; the `0d` was dropped in 1.19.)
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) return `${years}y${days % 365}d`;
  return `${years}y`;
}

/**
 * kube's `translateTimestampSince`: the human duration from a timestamp to `now`, or
 * `<unknown>` when the timestamp is unset (or not a date).
 */
export function timestampSince(timestamp: unknown, now: Date): string {
  if (typeof timestamp !== 'string' || timestamp === '') return '<unknown>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<unknown>';
  return humanDuration(now.getTime() - at);
}

/** The human duration between two timestamps (a Job's start and completion), "" if either is unreadable. */
export function durationBetween(from: string, to: string | Date): string {
  const start = Date.parse(from);
  const end = typeof to === 'string' ? Date.parse(to) : to.getTime();
  if (Number.isNaN(start) || Number.isNaN(end)) return '';
  return humanDuration(end - start);
}
