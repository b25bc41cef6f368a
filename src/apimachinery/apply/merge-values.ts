import { jsonEqual } from '../object.js';
import { FieldSet } from './field-set.js';
import { isMap } from './go-format.js';
import { listItemElement } from './list-item.js';
import { fieldElement, type FieldPath, pathElementString, serializePathElement } from './path-element.js';
import type { TypeContext } from './to-field-set.js';
import { type ListType, resolveType, type TypeNode } from './type-schema.js';
import type { ValidationError } from './validation-errors.js';

/** Called on leaves (scalars, atomic or both-empty containers) and on every other node after its children. */
interface MergeHooks {
  leaf?(path: FieldPath, lhs: unknown, rhs: unknown): void;
  node?(path: FieldPath, lhs: unknown, rhs: unknown): void;
}

/**
 * structured-merge-diff 1.17's merge of two typed values (`undefined` = absent): leaves take
 * the right-hand value when it is present; maps merge key by key, keeping the left-hand
 * order and appending new keys; associative lists merge items by key, keeping the
 * left-hand order and appending new items in right-hand order; atomic lists and maps, and
 * containers empty on both sides, are leaves. Nothing is removed.
 */
export function mergeObjects(lhs: unknown, rhs: unknown, type: TypeNode, ctx: TypeContext): { value: unknown; errors: ValidationError[] } {
  const walker = new MergeWalker(ctx, {});
  const value = walker.merge(type, lhs, rhs, []);
  return { value, errors: walker.errors };
}

/** Fields added, modified and removed from `lhs` to `rhs` (upstream's `Compare`; containers count when added or removed whole). */
export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

export function compareObjects(lhs: unknown, rhs: unknown, type: TypeNode, ctx: TypeContext): Comparison & { errors: ValidationError[] } {
  const added = new FieldSet();
  const modified = new FieldSet();
  const removed = new FieldSet();
  const walker = new MergeWalker(ctx, {
    leaf: (path, l, r) => {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
      else if (!jsonEqual(l, r)) modified.insert(path);
    },
    node: (path, l, r) => {
      if (l === undefined) added.insert(path);
      else if (r === undefined) removed.insert(path);
    },
  });
  walker.merge(type, lhs, rhs, []);
  return { added, modified, removed, errors: walker.errors };
}

class MergeWalker {
  readonly errors: ValidationError[] = [];

  constructor(
    private readonly ctx: TypeContext,
    private readonly hooks: MergeHooks,
  ) {}

  merge(type: TypeNode, lhs: unknown, rhs: unknown, path: FieldPath): unknown {
    const t = resolveType(type, this.ctx.resolver);
    switch (t.kind) {
      case 'scalar':
      case 'untyped':
        return this.leaf(path, lhs, rhs);
      case 'deduced':
        return this.deduced(t, lhs, rhs, path);
      case 'struct':
      case 'map': {
        const l = isMap(lhs) ? lhs : undefined;
        const r = isMap(rhs) ? rhs : undefined;
        if ((t.kind === 'map' && t.atomic) || (isEmpty(l) && isEmpty(r))) return this.leaf(path, lhs, rhs);
        return this.node(path, lhs, rhs, this.map(t, l, r, path));
      }
      case 'list': {
        const l = Array.isArray(lhs) ? lhs : undefined;
        const r = Array.isArray(rhs) ? rhs : undefined;
        if (!t.associative || (isEmpty(l) && isEmpty(r))) return this.leaf(path, lhs, rhs);
        return this.node(path, lhs, rhs, this.list(t, l, r, path));
      }
    }
  }

  private leaf(path: FieldPath, lhs: unknown, rhs: unknown): unknown {
    this.hooks.leaf?.(path, lhs, rhs);
    return rhs !== undefined ? rhs : lhs;
  }

  private node(path: FieldPath, lhs: unknown, rhs: unknown, out: unknown): unknown {
    this.hooks.node?.(path, lhs, rhs);
    return out;
  }

  /** Untyped objects merge as granular maps; a map meeting a non-map is walked as both, like upstream. */
  private deduced(t: TypeNode, lhs: unknown, rhs: unknown, path: FieldPath): unknown {
    const granular: TypeNode = { kind: 'map', values: t, atomic: false };
    const l = isMap(lhs) ? lhs : undefined;
    const r = isMap(rhs) ? rhs : undefined;
    if (l === undefined && r === undefined) return this.leaf(path, lhs, rhs);
    if (l !== undefined && r === undefined && rhs !== undefined) {
      this.map(granular, l, undefined, path);
      return this.leaf(path, lhs, rhs);
    }
    if (r !== undefined && l === undefined && lhs !== undefined) this.hooks.leaf?.(path, lhs, rhs);
    return this.merge(granular, l ?? lhs, r ?? rhs, path);
  }

  private map(t: Extract<TypeNode, { kind: 'struct' | 'map' }>, l: Record<string, unknown> | undefined, r: Record<string, unknown> | undefined, path: FieldPath): unknown {
    const out: Record<string, unknown> = {};
    const fieldType = (name: string): TypeNode => (t.kind === 'map' ? t.values : (t.fields.get(name) ?? { kind: 'untyped' }));
    const put = (name: string, lv: unknown, rv: unknown): void => {
      const merged = this.merge(fieldType(name), lv, rv, [...path, fieldElement(name)]);
      if (merged !== undefined) out[name] = merged;
    };
    for (const [name, lv] of Object.entries(l ?? {})) put(name, lv, r !== undefined && Object.hasOwn(r, name) ? r[name] : undefined);
    for (const [name, rv] of Object.entries(r ?? {})) if (l === undefined || !Object.hasOwn(l, name)) put(name, undefined, rv);
    return Object.keys(out).length > 0 ? out : undefined;
  }

  private list(t: ListType, l: unknown[] | undefined, r: unknown[] | undefined, path: FieldPath): unknown {
    const right = new Map<string, unknown>();
    const rightOrder: Array<{ id: string; pe: Exclude<ReturnType<typeof listItemElement>, string> }> = [];
    (r ?? []).forEach((item, index) => {
      const pe = listItemElement(t, index, item);
      if (typeof pe === 'string') return void this.errors.push({ path, message: `rhs: element ${index}: ${pe}` });
      const id = serializePathElement(pe);
      if (right.has(id)) this.errors.push({ path, message: `rhs: duplicate entries for key ${pathElementString(pe)}` });
      right.set(id, item);
      rightOrder.push({ id, pe });
    });
    const out: unknown[] = [];
    const left = new Set<string>();
    (l ?? []).forEach((item, index) => {
      const pe = listItemElement(t, index, item);
      if (typeof pe === 'string') return void this.errors.push({ path, message: `lhs: element ${index}: ${pe}` });
      const id = serializePathElement(pe);
      if (left.has(id)) return void this.errors.push({ path, message: `lhs: duplicate entries for key ${pathElementString(pe)}` });
      left.add(id);
      const merged = this.merge(t.items, item, right.get(id), [...path, pe]);
      if (merged !== undefined) out.push(merged);
    });
    for (const { id, pe } of rightOrder) {
      if (left.has(id)) continue;
      const merged = this.merge(t.items, undefined, right.get(id), [...path, pe]);
      if (merged !== undefined) out.push(merged);
    }
    return out.length > 0 ? out : undefined;
  }
}

const isEmpty = (v: Record<string, unknown> | unknown[] | undefined): boolean => v === undefined || (Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0);
