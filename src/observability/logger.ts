import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

export const LOG_LEVELS: readonly LevelWithSilent[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The process logger: one JSON object per line on stdout (pino), so logs can be shipped and
 * queried as they are. Fields that could carry secrets are redacted wherever they appear.
 */
export function createLogger(options: { level?: string; name?: string; destination?: NodeJS.WritableStream } = {}): Logger {
  const level = options.level ?? 'info';
  if (!LOG_LEVELS.includes(level as LevelWithSilent)) {
    throw new Error(`log level "${level}" is not one of ${LOG_LEVELS.join(', ')}`);
  }
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
    options.destination ?? process.stdout,
  );
}
