import type { FieldSet } from './field-set.js';
import { isMap } from './go-format.js';
import { listItemElement } from './list-item.js';
import { fieldElement } from './path-element.js';
import type { TypeContext } from './to-field-set.js';
import { resolveType, type TypeNode } from './type-schema.js';

/**
 * A copy of `value` without the list items and map keys that `set` names (structured-merge-diff
 * 1.17's `RemoveItems`). Declared struct fields are never removed, and atomic containers are not
 * entered. A list or map that loses its last entry becomes `null`, as upstream leaves it.
 */
export function removeItems(value: unknown, set: FieldSet, type: TypeNode, ctx: TypeContext): unknown {
  if (set.isEmpty()) return value;
  const t = resolveType(type, ctx.resolver);
  switch (t.kind) {
    case 'list': {
      if (!t.associative || !Array.isArray(value) || value.length === 0) return value;
      const kept: unknown[] = [];
      value.forEach((item, index) => {
        const pe = listItemElement(t, index, item);
        if (typeof pe === 'string') return void kept.push(item);
        if (set.hasMember(pe)) return;
        kept.push(removeItems(item, set.child(pe), t.items, ctx));
      });
      return kept.length > 0 ? kept : null;
    }
    case 'struct':
    case 'map':
    case 'deduced': {
      if (!isMap(value) || Object.keys(value).length === 0 || (t.kind === 'map' && t.atomic)) return value;
      const out: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value)) {
        const pe = fieldElement(name);
        const declared = t.kind === 'struct' ? t.fields.get(name) : undefined;
        if (declared === undefined && set.hasMember(pe)) continue;
        const childType: TypeNode = t.kind === 'map' ? t.values : t.kind === 'deduced' ? t : (declared ?? { kind: 'untyped' });
        out[name] = removeItems(child, set.child(pe), childType, ctx);
      }
      return Object.keys(out).length > 0 ? out : null;
    }
    case 'scalar':
    case 'untyped':
      return value;
  }
}
