/**
 * A minimal DER encoder (X.690) for what certificates need: each function returns the
 * complete TLV. Callers build structures bottom-up from Buffers, so a certificate is
 * assembled with a handful of small allocations and no ASN.1 schema machinery.
 */

export const TAG = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

/** Bytes of the length octets of a `length`-byte content (short form below 128, long form above). */
function lengthOctets(length: number): number {
  if (length < 0x80) return 1;
  let octets = 1;
  for (let rest = length; rest > 0xff; rest = Math.floor(rest / 256)) octets++;
  return 1 + octets;
}

/** One TLV with `tag` around `content` (already-encoded children or primitive bytes), in one allocation. */
export function tlv(tag: number, ...content: readonly Uint8Array[]): Buffer {
  let length = 0;
  for (const part of content) length += part.length;
  const header = 1 + lengthOctets(length);
  const out = Buffer.allocUnsafe(header + length);
  out[0] = tag;
  if (length < 0x80) {
    out[1] = length;
  } else {
    out[1] = 0x80 | (header - 2);
    for (let i = header - 1, rest = length; i >= 2; i--, rest = Math.floor(rest / 256)) out[i] = rest & 0xff;
  }
  let offset = header;
  for (const part of content) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export const sequence = (...children: readonly Uint8Array[]): Buffer => tlv(TAG.sequence, ...children);
export const set = (...children: readonly Uint8Array[]): Buffer => tlv(TAG.set, ...children);
export const utf8String = (text: string): Buffer => tlv(TAG.utf8String, Buffer.from(text, 'utf8'));
export const octetString = (bytes: Uint8Array): Buffer => tlv(TAG.octetString, bytes);
export const derNull = (): Buffer => Buffer.from([TAG.null, 0]);
export const boolean = (value: boolean): Buffer => Buffer.from([TAG.boolean, 1, value ? 0xff : 0]);
/** `[n]` EXPLICIT (constructed, context-specific) around `content`. */
export const explicit = (n: number, content: Uint8Array): Buffer => tlv(0xa0 | n, content);
/** `[n]` IMPLICIT primitive (context-specific) with `bytes` as its content. */
export const implicitPrimitive = (n: number, bytes: Uint8Array): Buffer => tlv(0x80 | n, bytes);

/** A BIT STRING with no unused bits. */
export function bitString(bytes: Uint8Array): Buffer {
  return tlv(TAG.bitString, Buffer.from([0]), bytes);
}

/** A non-negative INTEGER from big-endian magnitude bytes (minimal: leading zeros dropped, a 0x00 added when the top bit is set). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const body = trimmed.length === 0 ? Buffer.from([0]) : ((trimmed[0] as number) & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(TAG.integer, body);
}

export function smallInteger(value: number): Buffer {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`smallInteger: ${value} is out of range`);
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return unsignedInteger(Buffer.from(bytes));
}

function base128(value: bigint): number[] {
  const bytes = [Number(value & 0x7fn)];
  for (let rest = value >> 7n; rest > 0n; rest >>= 7n) bytes.unshift(Number(rest & 0x7fn) | 0x80);
  return bytes;
}

const encodedOids = new Map<string, Buffer>();

/**
 * An OBJECT IDENTIFIER from its dotted form (arcs of any size, e.g. `2.25.<128-bit>`).
 * Encodings are kept: certificates use the same few OIDs over and over. Shared: do not modify.
 */
export function oid(dotted: string): Buffer {
  let encoded = encodedOids.get(dotted);
  if (encoded === undefined) {
    encoded = encodeOid(dotted);
    if (encodedOids.size < 1000) encodedOids.set(dotted, encoded);
  }
  return encoded;
}

function encodeOid(dotted: string): Buffer {
  const arcs = dotted.split('.').map((arc) => {
    if (!/^\d+$/.test(arc)) throw new Error(`"${dotted}" is not a dotted object identifier`);
    return BigInt(arc);
  });
  const [first, second, ...rest] = arcs;
  if (first === undefined || second === undefined || first > 2n) throw new Error(`"${dotted}" is not a dotted object identifier`);
  const bytes = [...base128(first * 40n + second), ...rest.flatMap(base128)];
  return tlv(TAG.oid, Buffer.from(bytes));
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** RFC 5280 Time: UTCTime through 2049, GeneralizedTime from 2050, whole seconds in UTC. */
export function time(date: Date): Buffer {
  const year = date.getUTCFullYear();
  const rest = `${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
  return year >= 1950 && year < 2050
    ? tlv(TAG.utcTime, Buffer.from(`${pad(year % 100)}${rest}`, 'ascii'))
    : tlv(TAG.generalizedTime, Buffer.from(`${pad(year, 4)}${rest}`, 'ascii'));
}
