import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../observability/logger.js';

/** A pino logger (the process logger's settings, at trace) whose output tests can read. */
export function captureLogger(): { readonly logger: Logger; text(): string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: createLogger({ level: 'trace', destination }), text: () => lines.join('') };
}
