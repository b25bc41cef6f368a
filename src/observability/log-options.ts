/** The command-line words of logging, without pino: the sidecar's entry point loads this, not pino. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** `json`: one JSON object per line; `pretty`: readable lines (pretty-log.ts); `auto`: pretty on a terminal, JSON otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Fields that could carry secrets: `*.name` is the `name` key of any object logged as a field's value. Both loggers redact them. */
export const REDACTED_KEYS: readonly string[] = ['authorization', 'Authorization', 'token', 'password', 'secret', 'privateKey', 'key'];
export const REDACTION_CENSOR = '[redacted]';
