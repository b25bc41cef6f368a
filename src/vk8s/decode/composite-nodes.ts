import { firstJsonChar } from './go-quote.js';
import { setOwn } from './set-own.js';
import type { DecodeContext, TypeNode } from './type-node.js';
import { OMIT, TypeDecodeError, isJsonObject, joinPath } from './type-node.js';

export interface StructField {
  readonly goName: string;
  readonly node: TypeNode;
}

/**
 * A Go struct: known properties are decoded (null ones dropped, as Go leaves them at their
 * zero value), unknown ones dropped — or recorded when the context keeps a path. Errors are
 * prefixed `<type>.<Field>: ` as json-iterator's struct and field decoders do.
 */
export class StructNode implements TypeNode {
  /** Filled by the compiler after the node is cached, so definitions may refer to themselves. */
  readonly fields = new Map<string, StructField>();
  constructor(readonly goType: string) {}

  decode(value: unknown, context: DecodeContext): unknown {
    if (!isJsonObject(value)) throw new TypeDecodeError(`readObjectStart: expect { or n, but found ${firstJsonChar(value)}`);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const field = this.fields.get(key);
      if (field === undefined) {
        if (context.path !== undefined) context.unknownFields.push(joinPath(context.path, key));
        continue;
      }
      const item = value[key];
      if (item === null || item === undefined) continue;
      context.path?.push(key);
      let decoded: unknown;
      try {
        decoded = field.node.decode(item, context);
      } catch (error) {
        throw TypeDecodeError.within(error, `${this.goType}.${field.goName}: `);
      }
      context.path?.pop();
      if (decoded !== OMIT) out[key] = decoded;
    }
    return out;
  }

  zero(): unknown {
    return {};
  }
}

/** A Go slice: `null` elements become the element's zero value; errors are prefixed `[]<elem>: `. */
export class SliceNode implements TypeNode {
  readonly goType: string;
  constructor(private readonly items: TypeNode) {
    this.goType = `[]${items.goType}`;
  }

  decode(value: unknown, context: DecodeContext): unknown {
    if (!Array.isArray(value)) throw new TypeDecodeError(`${this.goType}: decode slice: expect [ or n, but found ${firstJsonChar(value)}`);
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item === null || item === undefined) {
        out[i] = this.items.zero();
        continue;
      }
      context.path?.push(`[${i}]`);
      let decoded: unknown;
      try {
        decoded = this.items.decode(item, context);
      } catch (error) {
        throw TypeDecodeError.within(error, `${this.goType}: `);
      }
      context.path?.pop();
      out[i] = decoded === OMIT ? this.items.zero() : decoded;
    }
    return out;
  }

  zero(): unknown {
    return [];
  }
}

/** A Go map with string keys: `null` values become the value type's zero value; no error prefix. */
export class MapNode implements TypeNode {
  readonly goType: string;
  constructor(private readonly values: TypeNode) {
    this.goType = `map[string]${values.goType}`;
  }

  decode(value: unknown, context: DecodeContext): unknown {
    if (!isJsonObject(value)) throw new TypeDecodeError(`ReadMapCB: expect { or n, but found ${firstJsonChar(value)}`);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = value[key];
      let decoded: unknown;
      if (item === null || item === undefined) {
        decoded = this.values.zero();
      } else {
        context.path?.push(key);
        decoded = this.values.decode(item, context);
        context.path?.pop();
      }
      setOwn(out, key, decoded === OMIT ? this.values.zero() : decoded);
    }
    return out;
  }

  zero(): unknown {
    return {};
  }
}
