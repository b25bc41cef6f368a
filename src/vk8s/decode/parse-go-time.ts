/** Go's RFC 3339 layouts as metav1.Time and metav1.MicroTime parse them. */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export type GoTimeResult = { readonly seconds: number; readonly micros: number } | { readonly error: string };

/** Seconds from 0001-01-01T00:00:00Z to the Unix epoch. */
const ZERO_TIME_UNIX = -62135596800;

/**
 * Parses `value` as Go 1.13's `time.Parse(layout, value)` does for {@link RFC3339} (fraction
 * optional) and {@link RFC3339_MICRO} (exactly six fraction digits), returning Unix seconds
 * and microseconds, or Go's ParseError text (`parsing time "x" as "…": cannot parse "x" as
 * "2006"`, `parsing time "…": month out of range`).
 */
export function parseGoTime(value: string, layout: typeof RFC3339 | typeof RFC3339_MICRO): GoTimeResult {
  const micro = layout === RFC3339_MICRO;
  const bad = (valueElem: string, layoutElem: string): GoTimeResult => ({
    error: `parsing time "${value}" as "${layout}": cannot parse "${valueElem}" as "${layoutElem}"`,
  });
  const outOfRange = (what: string): GoTimeResult => ({ error: `parsing time "${value}": ${what} out of range` });
  let rest = value;
  const literal = (text: string): boolean => {
    if (!rest.startsWith(text)) return false;
    rest = rest.slice(text.length);
    return true;
  };
  /** Go's getnum: one or two digits (two when fixed); consumes nothing on failure. */
  const number = (fixed: boolean): number | undefined => {
    if (!isDigit(rest, 0)) return undefined;
    if (!isDigit(rest, 1)) {
      if (fixed) return undefined;
      const n = Number(rest[0]);
      rest = rest.slice(1);
      return n;
    }
    const n = Number(rest.slice(0, 2));
    rest = rest.slice(2);
    return n;
  };

  if (rest.length < 4 || !/^[0-9]{4}/.test(rest)) return bad(rest, '2006');
  const year = Number(rest.slice(0, 4));
  rest = rest.slice(4);
  if (!literal('-')) return bad(rest, '-');
  // Go reports an unreadable month as out of range too (its getnum yields 0).
  const month = number(true);
  if (month === undefined || month < 1 || month > 12) return outOfRange('month');
  if (!literal('-')) return bad(rest, '-');
  const day = number(true);
  if (day === undefined) return bad(rest, '02');
  if (!literal('T')) return bad(rest, 'T');
  const hour = number(false);
  if (hour === undefined) return bad(rest, '15');
  if (hour >= 24) return outOfRange('hour');
  if (!literal(':')) return bad(rest, ':');
  const minute = number(true);
  if (minute === undefined) return bad(rest, '04');
  if (minute >= 60) return outOfRange('minute');
  if (!literal(':')) return bad(rest, ':');
  const second = number(true);
  if (second === undefined) return bad(rest, '05');
  if (second >= 60) return outOfRange('second');
  let micros = 0;
  if (micro) {
    if (rest.length < 7 || !/^\.[0-9]{6}/.test(rest)) return bad(rest, '.000000');
    micros = Number(rest.slice(1, 7));
    rest = rest.slice(7);
  } else {
    const fraction = /^\.([0-9]+)/.exec(rest);
    if (fraction !== null) {
      micros = Math.floor(Number(`0.${(fraction[1] ?? '').slice(0, 9)}`) * 1e6);
      rest = rest.slice(fraction[0].length);
    }
  }
  let offset = 0;
  if (rest.startsWith('Z')) {
    rest = rest.slice(1);
  } else {
    const zone = /^([+-])([0-9]{2}):([0-9]{2})/.exec(rest);
    if (zone === null) return bad(rest, 'Z07:00');
    offset = (Number(zone[2]) * 60 + Number(zone[3])) * 60 * (zone[1] === '-' ? -1 : 1);
    rest = rest.slice(6);
  }
  if (rest !== '') return { error: `parsing time "${value}": extra text: ${rest}` };
  if (day < 1 || day > daysIn(month, year)) return outOfRange('day');
  return { seconds: civilToUnix(year, month, day) + hour * 3600 + minute * 60 + second - offset, micros };
}

/** Whether the instant is Go's zero time (which metav1.Time encodes as `null`). */
export function isGoZeroTime(seconds: number, micros: number): boolean {
  return seconds === ZERO_TIME_UNIX && micros === 0;
}

/** `2006-01-02T15:04:05Z` (or with `.000000` for MicroTime) in UTC, as Go's encoders write it. */
export function formatGoTime(seconds: number, micros: number, layout: typeof RFC3339 | typeof RFC3339_MICRO): string {
  const days = Math.floor(seconds / 86400);
  const secs = seconds - days * 86400;
  const [year, month, day] = unixDaysToCivil(days);
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  const time = `${pad(Math.floor(secs / 3600))}:${pad(Math.floor((secs % 3600) / 60))}:${pad(secs % 60)}`;
  const fraction = layout === RFC3339_MICRO ? `.${pad(micros, 6)}` : '';
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}T${time}${fraction}Z`;
}

const isDigit = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39;
const isLeap = (y: number): boolean => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const daysIn = (month: number, year: number): number => (month === 2 ? (isLeap(year) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 31);

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
function civilToUnix(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return (era * 146097 + doe - 719468) * 86400;
}

function unixDaysToCivil(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day];
}
