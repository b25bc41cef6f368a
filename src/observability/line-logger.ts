import type { Logger } from 'pino';
import { LOG_LEVELS, type LogFormat, REDACTED_KEYS, REDACTION_CENSOR } from './log-options.js';
import { prettyDestination, wantsColor } from './pretty-log.js';

/** The part of pino's logger that the sidecar uses: its level methods. A pino `Logger` is one. */
export type LevelLogger = Pick<Logger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'isLevelEnabled'>;

const LEVEL_VALUES: Readonly<Record<string, number>> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };
const REDACTED = new Set(REDACTED_KEYS);

/** pino's `err` serializer: type, message and stack (with the causes' appended), then the error's own fields (`code`…). */
function serializeError(error: Error): Record<string, unknown> {
  let message = error.message;
  let stack = error.stack ?? '';
  for (let cause = error.cause, depth = 0; cause instanceof Error && depth < 10; cause = cause.cause, depth++) {
    message += `: ${cause.message}`;
    stack += `\ncaused by: ${cause.stack ?? cause.message}`;
  }
  const fields: Record<string, unknown> = { type: error.constructor.name, message, stack };
  for (const [key, value] of Object.entries(error)) if (!(key in fields) && key !== 'cause') fields[key] = value;
  return fields;
}

/** A field's value as logged: errors serialized, `*.<secret key>` censored (copies; the caller's object is untouched). */
function fieldValue(value: unknown): unknown {
  if (value instanceof Error) return serializeError(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (!keys.some((key) => REDACTED.has(key))) return value;
  const copy: Record<string, unknown> = {};
  for (const key of keys) copy[key] = REDACTED.has(key) ? REDACTION_CENSOR : (value as Record<string, unknown>)[key];
  return copy;
}

/** JSON.stringify that writes `[Circular]` for an object inside itself and numbers for bigints, never throwing for them. */
function stringify(record: Record<string, unknown>): string {
  const ancestors: object[] = [];
  return JSON.stringify(record, function (this: unknown, _key, value: unknown) {
    if (typeof value === 'bigint') return Number(value);
    if (value === null || typeof value !== 'object') return value;
    while (ancestors.length > 0 && ancestors[ancestors.length - 1] !== this) ancestors.pop();
    if (ancestors.includes(value)) return '[Circular]';
    ancestors.push(value);
    return value;
  });
}

/**
 * A logger that writes the lines pino's `createLogger` writes — `{"level":30,"time":…,"pid":…,
 * "name":…, fields…, "msg":…}`, `err` serialized as pino does, the same keys redacted, pretty on
 * a terminal — without loading pino: the sidecar's entry point uses it, as pino and its ~30
 * modules cost every pod's sidecar ~7 MB of memory (docs/RUNTIME.md). It has the level methods
 * only (`LevelLogger`): no child loggers, no printf-style `%s` arguments (extra arguments are
 * ignored), no transports.
 */
export function createLineLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream; format?: LogFormat } = {}): LevelLogger {
  const level = options.level ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`log level "${level}" is not one of ${LOG_LEVELS.join(', ')}`);
  const threshold = LEVEL_VALUES[level] ?? 30;
  const out: NodeJS.WritableStream & { isTTY?: boolean } = options.destination ?? process.stdout;
  const format = options.format ?? 'auto';
  const pretty = format === 'pretty' || (format === 'auto' && options.destination === undefined && process.stdout.isTTY);
  const sink: { write(line: string): unknown } = pretty ? prettyDestination(out, { color: wantsColor(out) }) : out;
  const head = `"pid":${process.pid},"name":${JSON.stringify(options.name ?? 'edgeplane')}`;

  const method = (value: number) =>
    function log(first?: unknown, message?: unknown): void {
      if (value < threshold) return;
      const record: Record<string, unknown> = {};
      let msg = message;
      if (first instanceof Error) {
        record['err'] = serializeError(first);
        msg ??= first.message;
      } else if (first !== null && typeof first === 'object') {
        for (const [key, field] of Object.entries(first)) record[key] = fieldValue(field);
      } else if (first !== undefined && first !== null) {
        msg = first;
      }
      if (msg !== undefined) record['msg'] = msg;
      let fields: string;
      try {
        fields = stringify(record);
      } catch (error) {
        fields = stringify({ msg, logError: `the fields could not be written: ${error instanceof Error ? error.message : String(error)}` });
      }
      sink.write(`{"level":${value},"time":"${new Date().toISOString()}",${head}${fields === '{}' ? '}' : `,${fields.slice(1)}`}\n`);
    };
  return {
    fatal: method(60),
    error: method(50),
    warn: method(40),
    info: method(30),
    debug: method(20),
    trace: method(10),
    isLevelEnabled: (name: string) => (LEVEL_VALUES[name] ?? Infinity) >= threshold && name !== 'silent',
  };
}

const nothing = (): void => undefined;
/** Logs nothing (`startSidecar`'s default). */
export const SILENT_LOGGER: LevelLogger = { fatal: nothing, error: nothing, warn: nothing, info: nothing, debug: nothing, trace: nothing, isLevelEnabled: () => false };
