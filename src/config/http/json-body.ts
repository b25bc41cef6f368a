import { jsonDepthExceeds } from '../../common/json-depth.js';
import { ConfigError } from '../errors.js';

/** How deeply a body may nest objects and arrays: far beyond any kind's spec. */
const MAX_JSON_DEPTH = 64;

/**
 * Parses a request body as JSON; an empty body is `undefined`. Throws InvalidArgument, also
 * for a body nested deeper than {@link MAX_JSON_DEPTH} levels.
 */
export function parseJsonBody(raw: unknown): unknown {
  if (raw === undefined || raw === null) return undefined;
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : undefined;
  if (text === undefined) return raw;
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    throw ConfigError.invalid(`request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (jsonDepthExceeds(value, MAX_JSON_DEPTH)) throw ConfigError.invalid(`request body nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`);
  return value;
}
