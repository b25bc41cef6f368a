import { ConfigError } from '../errors.js';

/** Parses a request body as JSON; an empty body is `undefined`. Throws InvalidArgument. */
export function parseJsonBody(raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : undefined;
  if (text === undefined) return raw;
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw ConfigError.invalid(`request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}
