import { pino, type Logger, type LevelWithSilent } from 'pino';
import { prettyDestination, wantsColor } from './pretty-log.js';

export type { Logger } from 'pino';

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** `json`: one JSON object per line; `pretty`: readable lines (pretty-log.ts); `auto`: pretty on a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/**
 * The process logger (pino). On stdout that is a terminal, lines a person reads; otherwise
 * (a pipe, a file, a log shipper, a given destination) one JSON object per line, so logs can
 * be shipped and queried as they are. Fields that could carry secrets are redacted wherever
 * they appear, in both formats.
 */
export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream; format?: LogFormat } = {}): Logger {
  const level = options.level ?? 'info';
  if (!LOG_LEVELS.includes(level as LevelWithSilent)) {
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
      redact: {
        paths: ['*.authorization', '*.Authorization', '*.token', '*.password', '*.secret', '*.privateKey', '*.key'],
        censor: '[redacted]',
      },
    },
    pretty ? prettyDestination(out, { color: wantsColor(out) }) : out,
  );
}
