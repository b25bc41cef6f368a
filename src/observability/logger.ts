import { pino, type Logger } from 'pino';
import { LOG_LEVELS, type LogFormat, REDACTED_KEYS, REDACTION_CENSOR } from './log-options.js';
import { prettyDestination, wantsColor } from './pretty-log.js';

export type { Logger } from 'pino';
export { LOG_FORMATS, LOG_LEVELS, type LogFormat } from './log-options.js';

/**
 * The process logger (pino). On stdout that is a terminal, lines a person reads; otherwise
 * (a pipe, a file, a log shipper, a given destination) one JSON object per line, so logs can
 * be shipped and queried as they are. Fields that could carry secrets are redacted wherever
 * they appear, in both formats.
 */
export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream; format?: LogFormat } = {}): Logger {
  const level = options.level ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new Error(`log level "${level}" is not one of ${LOG_LEVELS.join(', ')}`);
  }
  const out: NodeJS.WritableStream & { isTTY?: boolean } = options.destination ?? process.stdout;
  const format = options.format ?? 'auto';
  const pretty = format === 'pretty' || (format === 'auto' && options.destination === undefined && process.stdout.isTTY);
  return pino(
    {
      level,
      name: options.name ?? 'edgeplane',
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_KEYS.map((key) => `*.${key}`), censor: REDACTION_CENSOR },
    },
    pretty ? prettyDestination(out, { color: wantsColor(out) }) : out,
  );
}
