import fc from 'fast-check';
import { stringify as yamlStringify } from 'yaml';

/** A stand-in a target replaces with a name no earlier case used (so "absent after a 4xx" can be checked). */
export const FRESH_NAME = '$FRESH';

/** Strings that tend to break parsers and validators, and ordinary ones. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  fc.constantFrom('', ' ', '-', 'a-', '-a', 'A', '__proto__', 'constructor', 'toString', '..', '/', '%', '%00', '\u0000', '\ud800', '🙂', 'ä', 'x'.repeat(64), 'x'.repeat(254), 'x'.repeat(70_000), '1e309', 'NaN', 'null', 'true', '0x10', '-1', '9007199254740993', 'a=b', 'a!=b', 'a in (b', 'metadata.name=x', '${x}', '*', '&a', '!!binary x', '- x', 'a: b'),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);

/** JSON values, with the numbers and strings JSON.parse and YAML treat specially. */
export const oddJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  oddString,
  fc.constantFrom(null, true, false, 0, -0, -1, 1.5, 2 ** 31, 2 ** 53 + 2, -(2 ** 63), 1e308, Number.MIN_VALUE, [], {}, [null], { '': '' }, { __proto__: null, constructor: 'x' }),
  fc.integer(),
);

type Json = unknown;

/** Every path (as keys/indices) into a JSON value, found without recursion. */
function pathsOf(value: Json): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [[]];
  const stack: Array<{ v: Json; p: Array<string | number> }> = [{ v: value, p: [] }];
  while (stack.length > 0) {
    const { v, p } = stack.pop() as { v: Json; p: Array<string | number> };
    // Indexed, not v.map: a mutation may have given an array a `constructor` property.
    const children: Array<[string | number, Json]> = Array.isArray(v) ? Array.from({ length: v.length }, (_, i): [number, Json] => [i, v[i]]) : typeof v === 'object' && v !== null ? Object.entries(v) : [];
    for (const [key, item] of children) {
      out.push([...p, key]);
      stack.push({ v: item, p: [...p, key] });
    }
  }
  return out;
}

function parentAt(root: Json, path: ReadonlyArray<string | number>): Record<string | number, Json> | undefined {
  let current = root;
  for (const key of path.slice(0, -1)) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string | number, Json>)[key];
  }
  return typeof current === 'object' && current !== null ? (current as Record<string | number, Json>) : undefined;
}

/**
 * A stand-in for a value nested `levels` deep (arrays, or objects `{"a":…}`), which
 * {@link encode} writes out as text: JSON.stringify itself cannot write 100,000 levels.
 */
const deepMark = (levels: number, asObject: boolean): string => `$DEEP:${levels}:${asObject ? 1 : 0}`;
const DEEP_MARKS = /["']?\$DEEP:(\d+):([01])["']?/g;
const deepText = (levels: number, asObject: boolean): string => (asObject ? `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}` : `${'['.repeat(levels)}1${']'.repeat(levels)}`);
const expandDeep = (text: string): string => text.replace(DEEP_MARKS, (_m, levels: string, obj: string) => deepText(Number(levels), obj === '1'));

interface Mutation {
  readonly pick: number;
  readonly op: 'set' | 'delete' | 'wrap' | 'add' | 'deep';
  readonly key: string;
  readonly value: Json;
  readonly levels: number;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom<Mutation['op']>('set', 'set', 'set', 'delete', 'wrap', 'add', 'add', 'deep'),
  key: fc.oneof(fc.constantFrom('metadata', 'spec', 'status', 'name', 'labels', 'annotations', 'replicas', 'containers', 'selector', 'data', 'ports', '$patch', '$retainKeys', '$setElementOrder/containers', '$deleteFromPrimitiveList/finalizers', 'managedFields', 'resourceVersion', 'uid', 'finalizers', 'ownerReferences'), oddString),
  value: oddJson,
  levels: fc.oneof({ weight: 5, arbitrary: fc.integer({ min: 20, max: 140 }) }, fc.integer({ min: 500, max: 5_000 }), fc.constant(100_000)),
});

/** Removes an array item without splice, which calls the array's (possibly mutated) constructor. */
function removeAt(array: Json[], index: number): void {
  for (let i = index; i < array.length - 1; i++) array[i] = array[i + 1];
  array.length -= 1;
}

function applyMutation(root: Json, mutation: Mutation): Json {
  // A copy of the value: fast-check hands out constants (`{}`, `[]`) as shared instances.
  const m = { ...mutation, value: structuredClone(mutation.value) };
  const paths = pathsOf(root);
  const path = paths[m.pick % paths.length] ?? [];
  if (path.length === 0) return m.op === 'set' ? m.value : m.op === 'wrap' ? [root] : root;
  const parent = parentAt(root, path);
  const last = path[path.length - 1] as string | number;
  if (parent === undefined) return root;
  switch (m.op) {
    case 'set':
      parent[last] = m.value;
      break;
    case 'delete':
      if (Array.isArray(parent) && typeof last === 'number') removeAt(parent, last);
      else delete parent[last];
      break;
    case 'wrap':
      parent[last] = [parent[last]];
      break;
    case 'add': {
      const target = parent[last];
      if (Array.isArray(target)) target.push(m.value);
      else if (typeof target === 'object' && target !== null) (target as Record<string, Json>)[m.key] = m.value;
      else parent[m.key] = m.value;
      break;
    }
    case 'deep':
      parent[last] = deepMark(m.levels, m.pick % 2 === 0);
      break;
  }
  return root;
}

/** `template` (a valid object) with 0 to `max` random mutations: wrong types, missing and extra fields, deep nesting. */
export function mutated(template: Json, max = 3): fc.Arbitrary<Json> {
  return fc.array(mutation, { maxLength: max }).map((mutations) => mutations.reduce<Json>((value, m) => applyMutation(value, m), structuredClone(template)));
}

/** Nine levels of nine YAML aliases: 9^9 strings if expanded (the "billion laughs"). */
const YAML_ALIAS_BOMB = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]', ...[1, 2, 3, 4, 5, 6, 7, 8].map((i) => `a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(',')}]`)].join('\n');

type Encoding = 'json' | 'yaml' | 'truncated' | 'garbage' | 'bomb' | 'duplicate-keys' | 'empty';

/** How a case's value is written on the wire: usually JSON or YAML, sometimes broken (`cut` and `junk` say where and how). */
export interface EncodingChoice {
  readonly kind: Encoding;
  readonly cut: number;
  readonly junk: string;
}

export const encoding: fc.Arbitrary<EncodingChoice> = fc.record({
  kind: fc.oneof({ weight: 12, arbitrary: fc.constant<Encoding>('json') }, { weight: 4, arbitrary: fc.constant<Encoding>('yaml') }, fc.constantFrom<Encoding>('truncated', 'garbage', 'bomb', 'duplicate-keys', 'empty')),
  cut: fc.nat(),
  junk: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('\u0000', '}', ']', '"', '\\', '\ud800', '*a0', '&x', '!!str', '%YAML 1.2\n---\n')),
});

/** `value` written as `how` says (the fresh-name stand-in left in place for the target). */
export function encode(value: Json, how: EncodingChoice): string {
  return expandDeep(encodeShallow(value, how));
}

function encodeShallow(value: Json, how: EncodingChoice): string {
  const json = JSON.stringify(value) ?? 'null';
  switch (how.kind) {
    case 'json':
      return json;
    case 'yaml':
      return value === undefined ? '' : yamlStringify(value, { aliasDuplicateObjects: false, lineWidth: 0 });
    case 'truncated':
      return json.slice(0, how.cut % (json.length + 1));
    case 'garbage': {
      const at = how.cut % (json.length + 1);
      return json.slice(0, at) + how.junk + json.slice(at);
    }
    case 'bomb':
      return `${yamlStringify(value, { aliasDuplicateObjects: false, lineWidth: 0 })}\n${YAML_ALIAS_BOMB}\n`;
    case 'duplicate-keys':
      return json.startsWith('{') && json.length > 2 ? `{"metadata":{"name":"dup"},${json.slice(1)}` : json;
    case 'empty':
      return '';
  }
}
