import { StatusError } from '../../apimachinery/errors/status-error.js';

/**
 * Query parameters as kube-apiserver decodes them into options objects (apimachinery's
 * `Convert_Slice_string_To_*`): the first value counts; a decoding failure is a 400 whose
 * message is Go's `strconv` error.
 */

/** Absent, "0" and "false" (any case) are false; anything else, even "", is true. */
export function queryBool(query: URLSearchParams, name: string): boolean {
  const value = query.get(name);
  if (value === null) return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}

/** An int64 parameter; undefined when absent. */
export function queryInt64(query: URLSearchParams, name: string): number | undefined {
  const value = query.get(name);
  if (value === null) return undefined;
  if (!/^[+-]?\d+$/.test(value)) throw StatusError.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const big = BigInt(value);
  if (big > 9223372036854775807n || big < -9223372036854775808n) {
    throw StatusError.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  }
  return Number(big);
}

/** Go's `strconv.ParseUint(v, 10, 16)`, as port lists are decoded; the error text without a prefix. */
export function parseUint16(value: string): number | string {
  if (!/^\d+$/.test(value)) return `strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`;
  const n = Number(value);
  if (n > 65535) return `strconv.ParseUint: parsing ${JSON.stringify(value)}: value out of range`;
  return n;
}
