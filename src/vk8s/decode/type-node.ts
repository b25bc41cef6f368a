/**
 * The compiled form of an OpenAPI definition: one node per Go type, decoding a parsed JSON
 * value the way json-iterator decodes it into the typed Go struct in kube-apiserver 1.17.
 */

/** Returned by `decode` for a value Go would leave at its zero value and not encode (a zero Time). */
export const OMIT: unique symbol = Symbol('omit');

export interface DecodeContext {
  /** The JSON path being decoded, kept only while unknown fields are collected. */
  readonly path: string[] | undefined;
  /** Unknown fields found (`spec.template.spec.containers[0].bogus`), when `path` is kept. */
  readonly unknownFields: string[];
}

export interface TypeNode {
  /** The Go type as json-iterator prints it (`v1.Container`, `[]v1.Container`, `string`). */
  readonly goType: string;
  /**
   * The clean value for a non-null JSON value, or {@link OMIT}; throws {@link TypeDecodeError}
   * with json-iterator's detail for a value of the wrong type.
   */
  decode(value: unknown, context: DecodeContext): unknown;
  /** What `null` becomes as a list element or map value (Go's zero value). */
  zero(): unknown;
}

/** A value of the wrong type; `detail` reads like json-iterator's error, without its byte offsets. */
export class TypeDecodeError extends Error {
  override readonly name = 'TypeDecodeError';
  constructor(readonly detail: string) {
    super(detail);
  }

  /** Re-throws `error` with `prefix` before its detail, as each json-iterator decoder level does. */
  static within(error: unknown, prefix: string): unknown {
    return error instanceof TypeDecodeError ? new TypeDecodeError(prefix + error.detail) : error;
  }
}

/** Appends a property or `[i]` index segment to a dotted JSON path. */
export function joinPath(path: readonly string[], last?: string): string {
  let out = '';
  for (const segment of last === undefined ? path : [...path, last]) {
    out += segment.startsWith('[') || out === '' ? segment : `.${segment}`;
  }
  return out;
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
