import { CronExpressionParser } from 'cron-parser';
import { parseGoDuration } from './workload-go-duration.js';

/**
 * CronJob schedules as kube-apiserver 1.17 accepts them: robfig/cron v1's ParseStandard —
 * five fields (minute hour day-of-month month day-of-week) with `*`, `?`, ranges, steps,
 * lists and month/day names, or a descriptor (`@hourly`, `@daily`, `@every 1h30m`, …).
 * Errors are robfig's words, which kube puts after `spec.schedule: Invalid value: "…": `.
 * An accepted schedule is also checked by (and handed over as an expression for) the
 * `cron-parser` package, which computes the run times.
 */
export type CronSchedule =
  /** A five-field expression cron-parser evaluates. */
  | { readonly kind: 'cron'; readonly expression: string }
  /** `@every <duration>`: a fixed interval (at least one second, whole seconds). */
  | { readonly kind: 'every'; readonly seconds: number };

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

const DESCRIPTORS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

class ScheduleError extends Error {}

/** Go's strconv.Atoi, then robfig's non-negative check. */
function parseInt32(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new ScheduleError(`Failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const value = Number(expr);
  if (!Number.isSafeInteger(value)) throw new ScheduleError(`Failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (value < 0) throw new ScheduleError(`Negative number (${value}) not allowed: ${expr}`);
  return value;
}

function parseIntOrName(expr: string, bounds: Bounds): number {
  const named = bounds.names?.[expr.toLowerCase()];
  return named ?? parseInt32(expr);
}

/** robfig getRange: `*`, `?`, `n`, `a-b`, each optionally `/step`. */
function checkRange(expr: string, bounds: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = (rangeAndStep[0] ?? '').split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    start = parseIntOrName(lowAndHigh[0] ?? '', bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1] ?? '', bounds);
    else throw new ScheduleError(`Too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = parseInt32(rangeAndStep[1] ?? '');
    if (lowAndHigh.length === 1) end = bounds.max;
  } else if (rangeAndStep.length > 2) {
    throw new ScheduleError(`Too many slashes: ${expr}`);
  }
  if (start < bounds.min) throw new ScheduleError(`Beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new ScheduleError(`End of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new ScheduleError(`Beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new ScheduleError(`Step of range should be a positive number: ${expr}`);
}

function parseDescriptor(spec: string): CronSchedule {
  const expression = DESCRIPTORS[spec];
  if (expression != null) return { kind: 'cron', expression };
  if (spec.startsWith('@every ')) {
    const duration = parseGoDuration(spec.slice('@every '.length));
    if (typeof duration !== 'number') throw new ScheduleError(`Failed to parse duration ${spec}: ${duration.error}`);
    // robfig rounds an interval down to whole seconds, and up to one second at least.
    return { kind: 'every', seconds: Math.max(1, Math.floor(duration)) };
  }
  throw new ScheduleError(`Unrecognized descriptor: ${spec}`);
}

function parseStandard(spec: string): CronSchedule {
  if (spec === '') throw new ScheduleError('Empty spec string');
  if (spec.startsWith('@')) return parseDescriptor(spec);
  const fields = spec.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) throw new ScheduleError(`Expected exactly 5 fields, found ${fields.length}: ${spec}`);
  fields.forEach((field, i) => {
    const bounds = FIELDS[i] as Bounds;
    for (const range of field.split(',').filter((r) => r !== '')) checkRange(range, bounds);
  });
  return { kind: 'cron', expression: fields.map((f) => f.replaceAll('?', '*')).join(' ') };
}

/** Parses a schedule; `{ error }` carries the text kube-apiserver prints. */
export function parseCronSchedule(schedule: string): CronSchedule | { readonly error: string } {
  let parsed: CronSchedule;
  try {
    parsed = parseStandard(schedule);
  } catch (error) {
    if (error instanceof ScheduleError) return { error: error.message };
    throw error;
  }
  if (parsed.kind === 'cron') {
    try {
      CronExpressionParser.parse(parsed.expression);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return parsed;
}
