import { InvalidArgumentError } from 'commander';

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A command-line duration — `90m`, `24h`, `7d`, `3600s` — in milliseconds; at least a minute. */
export function durationArgument(value: string): number {
  const match = /^(\d+)([smhd])$/.exec(value.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * (UNIT_MS[match[2] ?? ''] ?? Number.NaN);
  if (!(ms >= 60_000)) throw new InvalidArgumentError('must be a whole number with a unit s, m, h or d, at least 1m (e.g. 24h)');
  return ms;
}
