/**
 * Go's renderings of bytes and strings inside error messages, so that texts built from them
 * read exactly as kube-apiserver's do.
 */

const ESCAPES: Readonly<Record<number, string>> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/** `strconv.Quote(string(rune(c)))` without its quotes, for one byte taken as a rune (U+0000–U+00FF). */
function quoteRune(c: number): string {
  if (c === 0x5c) return '\\\\';
  if (c === 0x22) return '\\"';
  const escape = ESCAPES[c];
  if (escape !== undefined) return escape;
  if (c < 0x20 || c === 0x7f) return `\\x${c.toString(16).padStart(2, '0')}`;
  // C1 controls, no-break space and soft hyphen are not printable for Go's strconv.IsPrint.
  if ((c >= 0x80 && c <= 0xa0) || c === 0xad) return `\\u00${c.toString(16).padStart(2, '0')}`;
  return String.fromCharCode(c);
}

/** encoding/json's `quoteChar`: how its syntax errors show the offending byte (`'x'`, `'"'`, `'\''`). */
export function goQuoteChar(c: number): string {
  if (c === 0x27) return `'\\''`;
  if (c === 0x22) return `'"'`;
  return `'${quoteRune(c)}'`;
}

/** jsoniter's `string([]byte{c})` for the first byte of a JSON value: what "but found X" shows. */
export function firstJsonChar(value: unknown): string {
  if (typeof value === 'string') return '"';
  if (typeof value === 'number') return String(value).charAt(0);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value === null || value === undefined) return 'n';
  return Array.isArray(value) ? '[' : '{';
}

/** encoding/json's name for a JSON value's kind in UnmarshalTypeError (`number`, `object`, …). */
export function goJsonValueKind(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  if (value === null || value === undefined) return 'null';
  return Array.isArray(value) ? 'array' : 'object';
}
