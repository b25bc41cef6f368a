import { Quantity, QuantityError } from '../../apimachinery/quantity/quantity.js';
import { decodeGoBase64 } from './go-base64.js';
import { firstJsonChar, goJsonValueKind } from './go-quote.js';
import { setOwn } from './set-own.js';
import { RFC3339, RFC3339_MICRO, formatGoTime, isGoZeroTime, parseGoTime } from './parse-go-time.js';
import type { DecodeContext, TypeNode } from './type-node.js';
import { OMIT, TypeDecodeError } from './type-node.js';

export type ScalarKind = 'string' | 'bool' | 'int32' | 'int64' | 'float64' | 'bytes' | 'intOrString' | 'quantity' | 'time' | 'microTime' | 'any';

/** json-iterator's `string([]byte{0xff})` in its number errors, as it reaches clients through JSON. */
const INVALID_BYTE = '\ufffd';

function scalar(goType: string, zero: unknown, decode: (value: unknown) => unknown): TypeNode {
  return { goType, decode: (value: unknown, _context: DecodeContext) => decode(value), zero: () => zero };
}

function integer(bits: 32 | 64): TypeNode {
  const max = bits === 32 ? 2n ** 31n - 1n : 2n ** 63n - 1n;
  const maxUnsigned = bits === 32 ? 2n ** 32n - 1n : 2n ** 64n - 1n;
  const read = bits === 32 ? 'ReadInt32' : 'ReadInt64';
  const readUnsigned = bits === 32 ? 'readUint32' : 'readUint64';
  return scalar(`int${bits}`, 0, (value) => {
    if (typeof value !== 'number') throw new TypeDecodeError(`${readUnsigned}: unexpected character: ${INVALID_BYTE}`);
    if (!Number.isInteger(value)) throw new TypeDecodeError('assertInteger: can not decode float as int');
    const magnitude = BigInt(Math.abs(value));
    if (magnitude > maxUnsigned) throw new TypeDecodeError(`${readUnsigned}: overflow`);
    if (magnitude > (value < 0 ? max + 1n : max)) throw new TypeDecodeError(`${read}: overflow: ${magnitude}`);
    return value === 0 ? 0 : value;
  });
}

/** A `[]byte`: a base64 string (re-encoded canonically) or, as json-iterator also accepts, an array of bytes. */
function bytes(): TypeNode {
  return scalar('[]uint8', '', (value) => {
    if (typeof value === 'string') {
      const decoded = decodeGoBase64(value);
      if ('corruptAt' in decoded) throw new TypeDecodeError(`decode base64: illegal base64 data at input byte ${decoded.corruptAt}`);
      return decoded.bytes.toString('base64');
    }
    if (!Array.isArray(value)) throw new TypeDecodeError('base64Codec: invalid input');
    const out = Buffer.alloc(value.length);
    value.forEach((item: unknown, i) => {
      if (item === null) return;
      if (typeof item !== 'number' || item < 0) throw new TypeDecodeError(`[]uint8: readUint32: unexpected character: ${INVALID_BYTE}`);
      if (!Number.isInteger(item)) throw new TypeDecodeError('[]uint8: assertInteger: can not decode float as int');
      if (item > 255) throw new TypeDecodeError(item > 2 ** 32 - 1 ? '[]uint8: readUint32: overflow' : `[]uint8: ReadUint8: overflow: ${item}`);
      out[i] = item;
    });
    return out.toString('base64');
  });
}

/** The error text of a value handed to an `UnmarshalJSON` method, as json-iterator wraps it. */
const unmarshaler = (message: string): TypeDecodeError => new TypeDecodeError(`unmarshalerDecoder: ${message}`);

function intOrString(): TypeNode {
  return scalar('intstr.IntOrString', 0, (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= -(2 ** 31) && value <= 2 ** 31 - 1) return value === 0 ? 0 : value;
      throw unmarshaler(`json: cannot unmarshal number ${String(value)} into Go value of type int32`);
    }
    throw unmarshaler(`json: cannot unmarshal ${goJsonValueKind(value)} into Go value of type int32`);
  });
}

function quantity(): TypeNode {
  return scalar('resource.Quantity', '0', (value) => {
    const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : JSON.stringify(value);
    try {
      return Quantity.parse(text).toString();
    } catch (error) {
      if (error instanceof QuantityError) throw unmarshaler(error.message);
      throw error;
    }
  });
}

function time(layout: typeof RFC3339 | typeof RFC3339_MICRO): TypeNode {
  return scalar(layout === RFC3339 ? 'v1.Time' : 'v1.MicroTime', null, (value) => {
    if (typeof value !== 'string') throw unmarshaler(`json: cannot unmarshal ${goJsonValueKind(value)} into Go value of type string`);
    const parsed = parseGoTime(value, layout);
    if ('error' in parsed) throw unmarshaler(parsed.error);
    return isGoZeroTime(parsed.seconds, parsed.micros) ? OMIT : formatGoTime(parsed.seconds, parsed.micros, layout);
  });
}

/** A deep copy of a JSON value. */
function cloneJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneJson);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setOwn(out, key, cloneJson(item));
    return out;
  }
  return value;
}

/** The node for a Go scalar or opaque type. */
export function scalarNode(kind: ScalarKind): TypeNode {
  switch (kind) {
    case 'string':
      return scalar('string', '', (value) => {
        if (typeof value !== 'string') throw new TypeDecodeError(`ReadString: expects " or n, but found ${firstJsonChar(value)}`);
        return value;
      });
    case 'bool':
      return scalar('bool', false, (value) => {
        if (typeof value !== 'boolean') throw new TypeDecodeError(`ReadBool: expect t or f, but found ${firstJsonChar(value)}`);
        return value;
      });
    case 'int32':
      return integer(32);
    case 'int64':
      return integer(64);
    case 'float64':
      return scalar('float64', 0, (value) => {
        if (typeof value !== 'number') throw new TypeDecodeError('readNumberAsString: invalid number');
        return value;
      });
    case 'bytes':
      return bytes();
    case 'intOrString':
      return intOrString();
    case 'quantity':
      return quantity();
    case 'time':
      return time(RFC3339);
    case 'microTime':
      return time(RFC3339_MICRO);
    case 'any':
      return scalar('interface {}', null, cloneJson);
  }
}
