const PREFIX = '#/definitions/';

/** Every definition name a JSON value refers to with `$ref: "#/definitions/<name>"`, at any depth. */
export function definitionRefs(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(value)) {
    for (const item of value) definitionRefs(item, into);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      if (key === '$ref' && typeof member === 'string' && member.startsWith(PREFIX)) into.add(member.slice(PREFIX.length));
      else definitionRefs(member, into);
    }
  }
  return into;
}

/**
 * The definitions reachable from `roots` through `$ref`s (the roots included), in the
 * document's order. A root or reference naming no definition is ignored.
 */
export function reachableDefinitions<T>(definitions: Readonly<Record<string, T>>, roots: Iterable<string>): Record<string, T> {
  const seen = new Set<string>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (seen.has(name) || !Object.hasOwn(definitions, name)) continue;
    seen.add(name);
    pending.push(...definitionRefs(definitions[name]));
  }
  const kept: Record<string, T> = {};
  for (const [name, definition] of Object.entries(definitions)) if (seen.has(name)) kept[name] = definition;
  return kept;
}
