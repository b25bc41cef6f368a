/**
 * The schema server-side apply walks objects with (structured-merge-diff's `schema.Atom`):
 * - `scalar`: a leaf (string, numeric, boolean, or untyped such as int-or-string);
 * - `untyped`: arbitrary JSON (RawExtension, JSON), one atomic leaf;
 * - `struct`: an object with declared fields, each tracked on its own;
 * - `map`: an object with free keys (labels, resources), each key tracked on its own,
 *   or the whole map as one leaf when `atomic`;
 * - `list`: `atomic` (one leaf, items addressed by index) or `associative`: a map-list
 *   whose items are identified by `keys` (`k:` elements) or, without keys, a set of scalars
 *   (`v:` elements);
 * - `deduced`: no schema known (objects are granular maps, lists atomic);
 * - `ref`: a named definition, resolved through a {@link TypeResolver}.
 */
export type ScalarKind = 'string' | 'numeric' | 'boolean' | 'untyped';

export type TypeNode =
  | { readonly kind: 'scalar'; readonly scalar: ScalarKind }
  | { readonly kind: 'untyped' }
  | { readonly kind: 'deduced' }
  | { readonly kind: 'struct'; readonly fields: ReadonlyMap<string, TypeNode> }
  | { readonly kind: 'map'; readonly values: TypeNode; readonly atomic: boolean }
  | { readonly kind: 'list'; readonly items: TypeNode; readonly associative: boolean; readonly keys: readonly string[] }
  | { readonly kind: 'ref'; readonly name: string };

export type ListType = Extract<TypeNode, { kind: 'list' }>;

/** Finds a named definition's type. */
export type TypeResolver = (name: string) => TypeNode;

/** Follows `ref`s until a concrete type. */
export function resolveType(node: TypeNode, resolver: TypeResolver): Exclude<TypeNode, { kind: 'ref' }> {
  let current = node;
  for (let hops = 0; current.kind === 'ref'; hops++) {
    if (hops > 64) throw new Error(`type ${current.name} does not resolve to a concrete type`);
    current = resolver(current.name);
  }
  return current;
}

/** Builders for hand-written schemas (tests, kinds without OpenAPI definitions). */
export const types = {
  string: { kind: 'scalar', scalar: 'string' } as TypeNode,
  number: { kind: 'scalar', scalar: 'numeric' } as TypeNode,
  boolean: { kind: 'scalar', scalar: 'boolean' } as TypeNode,
  intOrString: { kind: 'scalar', scalar: 'untyped' } as TypeNode,
  untyped: { kind: 'untyped' } as TypeNode,
  deduced: { kind: 'deduced' } as TypeNode,
  struct: (fields: Record<string, TypeNode>): TypeNode => ({ kind: 'struct', fields: new Map(Object.entries(fields)) }),
  map: (values: TypeNode, atomic = false): TypeNode => ({ kind: 'map', values, atomic }),
  atomicList: (items: TypeNode): TypeNode => ({ kind: 'list', items, associative: false, keys: [] }),
  set: (items: TypeNode): TypeNode => ({ kind: 'list', items, associative: true, keys: [] }),
  mapList: (items: TypeNode, ...keys: string[]): TypeNode => ({ kind: 'list', items, associative: true, keys }),
  ref: (name: string): TypeNode => ({ kind: 'ref', name }),
};

/** A resolver that knows no names (for schemas without `ref`s). */
export const noNamedTypes: TypeResolver = (name) => {
  throw new Error(`no named type ${name}`);
};
