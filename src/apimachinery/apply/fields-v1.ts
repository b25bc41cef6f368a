import { FieldSet } from './field-set.js';
import { isMap } from './go-format.js';
import { comparePathElements, type FieldPath, parsePathElement, PathElementError, serializePathElement } from './path-element.js';

/**
 * The `FieldsV1` encoding of a field set, byte for byte as kube-apiserver 1.17 writes it
 * (structured-merge-diff of November 2019): one JSON object per level whose keys are the
 * serialized path elements in path-element order; a member with no children is `{}`; an
 * element that is a member and has children carries `".": {}` after its children (later
 * releases moved the `"."` first). Insertion order of the returned object is that order,
 * so `JSON.stringify` reproduces kube's bytes.
 */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const members = new Map(set.sortedMembers().map((pe) => [serializePathElement(pe), pe] as const));
  const children = new Map(set.sortedChildren().map((c) => [serializePathElement(c.pe), c.set] as const));
  const elements = new Map([...members, ...set.sortedChildren().map((c) => [serializePathElement(c.pe), c.pe] as const)]);
  const ordered = [...elements].sort(([, a], [, b]) => comparePathElements(a, b)).map(([id]) => id);
  for (const id of ordered) {
    const child = children.get(id);
    if (child === undefined) {
      out[id] = {};
      continue;
    }
    const inner = toFieldsV1(child);
    if (members.has(id)) inner['.'] = {};
    out[id] = inner;
  }
  return out;
}

/** Why a `fieldsV1` value could not be decoded. */
export class FieldsV1Error extends Error {
  override readonly name = 'FieldsV1Error';
}

/** Reads a `fieldsV1` object (as upstream: unknown element types are dropped, `null` counts as `{}`). */
export function fromFieldsV1(fields: unknown): FieldSet {
  if (fields === null || fields === undefined) return new FieldSet();
  if (!isMap(fields)) throw new FieldsV1Error(`fieldsV1 must be a JSON object, got ${JSON.stringify(fields)}`);
  const set = new FieldSet();
  read(fields, [], set);
  return set;
}

/** Adds the paths below `prefix` to `set`; returns whether `prefix` itself is a member. */
function read(node: Record<string, unknown>, prefix: FieldPath, set: FieldSet): boolean {
  let isMember = false;
  let hasChildren = false;
  for (const [key, value] of Object.entries(node)) {
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe;
    try {
      pe = parsePathElement(key);
    } catch (error) {
      if (error instanceof PathElementError) throw new FieldsV1Error(`parsing key as path element: ${error.message}`);
      throw error;
    }
    if (pe === undefined) continue;
    if (value !== null && !isMap(value)) throw new FieldsV1Error(`the value of ${JSON.stringify(key)} must be a JSON object`);
    hasChildren = true;
    const path = [...prefix, pe];
    if (read(value ?? {}, path, set)) set.insert(path);
  }
  return isMember || !hasChildren;
}
