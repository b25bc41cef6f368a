import { scanGoJson } from './scan-go-json.js';

/** A JSON syntax error carrying Go encoding/json's message for it. */
export class GoJsonSyntaxError extends Error {
  override readonly name = 'GoJsonSyntaxError';
}

/**
 * Parses JSON bytes; on a syntax error throws {@link GoJsonSyntaxError} with the message Go's
 * encoding/json gives (`unexpected end of JSON input`, `invalid character 'x' looking for
 * beginning of value`). Numbers are IEEE doubles: integers beyond 2^53 lose precision.
 */
export function parseGoJson(raw: Uint8Array): unknown {
  const text = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GoJsonSyntaxError(scanGoJson(raw) ?? 'unexpected end of JSON input');
  }
}
