import { InvalidArgumentError } from 'commander';

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A command-line duration — `90m`, `24h`, `7d`, `3600s` — in milliseconds; at least a minute. */
export function durationArgument(value: string): number {
  return parseDuration(value, 60_000, 'must be a whole number with a unit s, m, h or d, at least 1m (e.g. 24h)');
}

/** A parser of command-line durations — `500ms`, `30s`, `2m` — in milliseconds, at least `minimumMs`. */
export function durationArgumentAtLeast(minimumMs: number): (value: string) => number {
  return (value) => parseDuration(value, minimumMs, `must be a whole number with a unit ms, s, m or h, at least ${minimumMs} ms (e.g. 30s)`);
}

function parseDuration(value: string, minimumMs: number, message: string): number {
  const match = /^(\d+)(ms|[smhd])$/.exec(value.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
  if (!(ms >= minimumMs)) throw new InvalidArgumentError(message);
  return ms;
}
