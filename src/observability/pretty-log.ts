/**
 * Log lines for a person at a terminal: pino's JSON object of each line becomes
 * `13:20:55.123 INFO  serving HTTPS url=https://127.0.0.1:6443 version=0.1.0`. The time of day,
 * the level, the message, then the other fields as key=value (strings bare unless they need
 * quotes, objects as compact JSON); pid and the logger's name are left out. An error's stack
 * follows on indented lines at level error and above (a warning shows its message only).
 * What is not a JSON object passes through unchanged.
 */

const LEVELS: Record<number, { label: string; color: string }> = {
  10: { label: 'TRACE', color: '90' },
  20: { label: 'DEBUG', color: '36' },
  30: { label: 'INFO ', color: '32' },
  40: { label: 'WARN ', color: '33' },
  50: { label: 'ERROR', color: '31' },
  60: { label: 'FATAL', color: '35' },
};

const OMITTED = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'v']);

function paint(color: boolean, code: string, text: string): string {
  return color ? `\u001b[${code}m${text}\u001b[0m` : text;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value !== '' && /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value === undefined) return 'undefined';
  // JSON.stringify answers undefined only for functions and symbols, which a parsed line has none of.
  return JSON.stringify(value) ?? 'undefined';
}

function timeOfDay(time: unknown): string {
  const date = new Date(typeof time === 'number' || typeof time === 'string' ? time : Date.now());
  if (Number.isNaN(date.getTime())) return String(time);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** One JSON log line (with or without its newline) as the human-readable line(s), newline-terminated. */
export function formatLogLine(line: string, options: { color?: boolean } = {}): string {
  const color = options.color ?? false;
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return line.endsWith('\n') ? line : line + '\n';
    entry = parsed as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : line + '\n';
  }
  const levelNumber = typeof entry['level'] === 'number' ? entry['level'] : 30;
  const level = LEVELS[levelNumber] ?? { label: String(levelNumber).padEnd(5), color: '0' };
  const parts = [paint(color, '2', timeOfDay(entry['time'])), paint(color, level.color, level.label)];
  if (typeof entry['msg'] === 'string') parts.push(levelNumber >= 40 ? paint(color, level.color, entry['msg']) : entry['msg']);
  let stack: string | undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (OMITTED.has(key)) continue;
    if ((key === 'err' || key === 'error') && value !== null && typeof value === 'object') {
      const err = value as { message?: unknown; stack?: unknown };
      parts.push(`${paint(color, '2', key + '=')}${renderValue(typeof err.message === 'string' ? err.message : value)}`);
      if (levelNumber >= 50 && typeof err.stack === 'string') stack = err.stack;
      continue;
    }
    parts.push(`${paint(color, '2', key + '=')}${renderValue(value)}`);
  }
  let text = parts.join(' ') + '\n';
  if (stack !== undefined) text += stack.split('\n').map((l) => `    ${l.trimStart()}`).join('\n') + '\n';
  return text;
}

/** A pino destination that writes each line to `out` formatted for a person. */
export function prettyDestination(out: NodeJS.WritableStream, options: { color?: boolean } = {}): { write(line: string): boolean } {
  return { write: (line: string) => out.write(formatLogLine(line, options)) };
}

/** Whether colours suit `out`: a terminal, and NO_COLOR (no-color.org) unset. */
export function wantsColor(out: NodeJS.WritableStream & { isTTY?: boolean }): boolean {
  return out.isTTY === true && (process.env['NO_COLOR'] ?? '') === '' && process.env['TERM'] !== 'dumb';
}
