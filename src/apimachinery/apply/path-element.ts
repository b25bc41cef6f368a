import { compareGoStrings, compareSequences, compareValues, goJson, goJsonString, goValueString, isMap } from './go-format.js';

/**
 * One step of a field path (structured-merge-diff's `PathElement`): a map or struct field,
 * the key fields of an item in an associative list, the value of an item in a set, or the
 * index of an item in an atomic list. Key fields are kept sorted by name.
 */
export type PathElement =
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'key'; readonly fields: ReadonlyArray<readonly [string, unknown]> }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'index'; readonly index: number };

export type FieldPath = readonly PathElement[];

export const fieldElement = (name: string): PathElement => ({ kind: 'field', name });

export function keyElement(fields: Iterable<readonly [string, unknown]>): PathElement {
  return { kind: 'key', fields: [...fields].sort(([a], [b]) => compareGoStrings(a, b)) };
}

const RANK: Readonly<Record<PathElement['kind'], number>> = { field: 0, key: 1, value: 2, index: 3 };

/** The order of path elements in a field set: fields, then keys, values and indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return RANK[a.kind] - RANK[b.kind];
  if (a.kind === 'field' && b.kind === 'field') return compareGoStrings(a.name, b.name);
  if (a.kind === 'key' && b.kind === 'key') return compareSequences(a.fields, b.fields);
  if (a.kind === 'value' && b.kind === 'value') return compareValues(a.value, b.value);
  if (a.kind === 'index' && b.kind === 'index') return a.index - b.index;
  return 0;
}

/** The `fieldsV1` key of an element: `f:<name>`, `k:<json>`, `v:<json>` or `i:<index>`. Canonical, so also an identity. */
export function serializePathElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `f:${pe.name}`;
    case 'key':
      return `k:{${pe.fields.map(([k, v]) => `${goJsonString(k)}:${goJson(v)}`).join(',')}}`;
    case 'value':
      return `v:${goJson(pe.value)}`;
    case 'index':
      return `i:${pe.index}`;
  }
}

/** Why a `fieldsV1` key could not be read (a key of an unknown type is skipped instead). */
export class PathElementError extends Error {
  override readonly name = 'PathElementError';
}

/** Reads a `fieldsV1` key; `undefined` for a type this version does not know (dropped, like upstream). */
export function parsePathElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new PathElementError('key must be 2 characters long:');
  if (s[1] !== ':') throw new PathElementError(`missing colon: ${s}`);
  const body = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(body);
    case 'v':
      return { kind: 'value', value: parseJson(body) };
    case 'k': {
      const parsed = parseJson(body);
      if (!isMap(parsed)) throw new PathElementError(`key element is not a JSON object: ${body}`);
      return keyElement(Object.entries(parsed));
    }
    case 'i': {
      if (!/^-?\d+$/.test(body)) throw new PathElementError(`strconv.Atoi: parsing ${JSON.stringify(body)}: invalid syntax`);
      return { kind: 'index', index: Number(body) };
    }
    default:
      return undefined;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new PathElementError(`invalid JSON in path element ${JSON.stringify(text)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The human-readable form kube prints in conflicts and errors: `.name`, `[k=v,…]`, `[=v]`, `[i]`. */
export function pathElementString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([k, v]) => `${k}=${goValueString(v)}`).join(',')}]`;
    case 'value':
      return `[=${goValueString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

export const pathString = (path: FieldPath): string => path.map(pathElementString).join('');
