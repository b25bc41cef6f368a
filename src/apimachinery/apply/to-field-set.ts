import { FieldSet } from './field-set.js';
import { goValueString, isMap } from './go-format.js';
import { listItemElement } from './list-item.js';
import { fieldElement, type FieldPath, pathElementString, serializePathElement } from './path-element.js';
import { type ListType, resolveType, type ScalarKind, type TypeNode, type TypeResolver } from './type-schema.js';
import type { ValidationError } from './validation-errors.js';

/**
 * How a value is typed. `strict` (the applied configuration) reports fields the schema does
 * not declare and values of the wrong shape, as upstream's validation does; otherwise (stored
 * objects) such fields are tracked as opaque leaves.
 */
export interface TypeContext {
  readonly resolver: TypeResolver;
  readonly strict: boolean;
}

/**
 * The fields a value sets (structured-merge-diff 1.17's `ToFieldSet`): every scalar (null
 * included), every atomic list or map as one leaf, every item of an associative list, and
 * every key of a granular map. Struct fields that hold objects are not members themselves.
 */
export function toFieldSet(value: unknown, type: TypeNode, ctx: TypeContext): { set: FieldSet; errors: ValidationError[] } {
  const walker = new FieldSetWalker(ctx);
  walker.walk(type, value, [], false);
  return { set: walker.set, errors: walker.errors };
}

const SCALAR_NAMES = { string: 'string', numeric: 'numeric (int or float)', boolean: 'boolean' } as const;

/**
 * Whether a value can be a scalar of this kind: null always; never an object or a list; a
 * number for numeric and a boolean for boolean fields. String fields take numbers and booleans
 * too, as 1.17's typed conversion let them reach the decoder (a Quantity such as `cpu: 1` is a
 * string in the OpenAPI document).
 */
function scalarFits(kind: Exclude<ScalarKind, 'untyped'>, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (isMap(value) || Array.isArray(value)) return false;
  if (kind === 'numeric') return typeof value === 'number';
  if (kind === 'boolean') return typeof value === 'boolean';
  return true;
}

class FieldSetWalker {
  readonly set = new FieldSet();
  readonly errors: ValidationError[] = [];

  constructor(private readonly ctx: TypeContext) {}

  /** `inLeaf`: inside an atomic list or map, where values are checked but nothing is recorded. */
  walk(type: TypeNode, value: unknown, path: FieldPath, inLeaf: boolean): void {
    const t = resolveType(type, this.ctx.resolver);
    switch (t.kind) {
      case 'scalar':
        if (t.scalar !== 'untyped' && !scalarFits(t.scalar, value)) this.mismatch(path, inLeaf, `expected ${SCALAR_NAMES[t.scalar]}, got ${goValueString(value)}`);
        else this.leaf(path, inLeaf);
        return;
      case 'untyped':
        this.leaf(path, inLeaf);
        return;
      case 'deduced':
        if (isMap(value)) this.object({ kind: 'map', values: t, atomic: false }, value, path, inLeaf);
        else this.leaf(path, inLeaf);
        return;
      case 'struct':
      case 'map':
        if (value !== null && value !== undefined && !isMap(value)) this.mismatch(path, inLeaf, `expected map, got ${goValueString(value)}`);
        else this.object(t, value, path, inLeaf);
        return;
      case 'list':
        if (value !== null && value !== undefined && !Array.isArray(value)) this.mismatch(path, inLeaf, `expected list, got ${goValueString(value)}`);
        else this.list(t, value, path, inLeaf);
        return;
    }
  }

  private object(t: Extract<TypeNode, { kind: 'struct' | 'map' }>, value: Record<string, unknown> | null | undefined, path: FieldPath, inLeaf: boolean): void {
    const atomic = t.kind === 'map' && t.atomic;
    if (atomic) this.leaf(path, inLeaf);
    if (!isMap(value)) return;
    for (const [name, child] of Object.entries(value)) {
      const childPath = [...path, fieldElement(name)];
      if (t.kind === 'map') {
        this.walk(t.values, child, childPath, inLeaf || atomic);
        this.leaf(childPath, inLeaf || atomic);
        continue;
      }
      const fieldType = t.fields.get(name);
      if (fieldType !== undefined) this.walk(fieldType, child, childPath, inLeaf);
      else if (this.ctx.strict) this.errors.push({ path: childPath, message: 'field not declared in schema' });
      else this.leaf(childPath, inLeaf);
    }
  }

  private list(t: ListType, value: unknown[] | null | undefined, path: FieldPath, inLeaf: boolean): void {
    const atomic = !t.associative;
    if (atomic) this.leaf(path, inLeaf);
    if (!Array.isArray(value)) return;
    const seen = new Set<string>();
    value.forEach((item, index) => {
      const pe = listItemElement(t, index, item);
      if (typeof pe === 'string') {
        this.errors.push({ path, message: `element ${index}: ${pe}` });
        return;
      }
      if (t.associative) {
        const id = serializePathElement(pe);
        if (seen.has(id)) this.errors.push({ path, message: `duplicate entries for key ${pathElementString(pe)}` });
        seen.add(id);
      }
      const childPath = [...path, pe];
      this.walk(t.items, item, childPath, inLeaf || atomic);
      this.leaf(childPath, inLeaf || atomic);
    });
  }

  private leaf(path: FieldPath, inLeaf: boolean): void {
    if (!inLeaf) this.set.insert(path);
  }

  private mismatch(path: FieldPath, inLeaf: boolean, message: string): void {
    if (this.ctx.strict) this.errors.push({ path, message });
    else this.leaf(path, inLeaf);
  }
}
