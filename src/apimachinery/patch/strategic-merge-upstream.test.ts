import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { literalSchema, type PatchSchema } from './patch-schema.js';
import { strategicMergePatch } from './strategic-merge.js';

/*
 * Apply-direction cases checked against upstream's strategicpatch test suite
 * (k8s.io/apimachinery pkg/util/strategicpatch/patch_test.go). Upstream's cases carry an
 * original, a two-way patch and the document it yields ("Modified"/"TwoWayResult"), and a
 * current (live) object, a three-way patch and the document it yields ("Result"). Only that
 * application half is taken here: `original` below is whatever upstream applies the patch to
 * (its Original for two-way cases, its Current for three-way ones). Patch creation is not
 * tested. Each case names the upstream case it comes from.
 */

// Upstream's test type. mergeItem: name/value/other scalars; mergingList (merge, key name);
// nonMergingList; mergingIntList (merge); nonMergingIntList; mergeItemPtr (merge, key name);
// simpleMap; replacingItem (replace); retainKeysMap (retainKeys, of the smaller item type below);
// retainKeysMergingList (merge,retainKeys, key name).
const mergeItem: PatchSchema = { field: (name) => mergeItemFields.field(name) };
const retainKeysItem = literalSchema({
  mergingIntList: { strategy: 'merge' },
  mergingList: { strategy: 'merge', mergeKey: 'name', schema: mergeItem },
  nonMergingList: { schema: mergeItem },
});
const mergeItemFields = literalSchema({
  mergingList: { strategy: 'merge', mergeKey: 'name', schema: mergeItem },
  nonMergingList: { schema: mergeItem },
  mergingIntList: { strategy: 'merge' },
  mergeItemPtr: { strategy: 'merge', mergeKey: 'name', schema: mergeItem },
  replacingItem: { strategy: 'replace' },
  retainKeysMap: { strategy: 'retainKeys', schema: retainKeysItem },
  retainKeysMergingList: { strategy: 'merge,retainKeys', mergeKey: 'name', schema: mergeItem },
});

/** Items that carry only their merge key: `named(1, 2)` is `[{name: 1}, {name: 2}]`. */
const named = (...names: Array<number | string>): Array<{ name: number | string }> => names.map((name) => ({ name }));

interface UpstreamCase {
  readonly name: string;
  readonly original: Record<string, unknown>;
  readonly patch: Record<string, unknown>;
  /** The document upstream produces. */
  readonly expected?: unknown;
  /** Upstream refuses the patch with an error matching this. */
  readonly throws?: RegExp;
}

const mapCases: UpstreamCase[] = [
  // createStrategicMergePatchTestCaseData, "defined null values should propagate overwrite current fields (with conflict)" (two-way)
  {
    name: 'null deletes a key, and a null for an absent key leaves nothing behind',
    original: { name: 2 },
    patch: { name: 1, value: 1, other: null },
    expected: { name: 1, value: 1 },
  },
  // TestUnknownField, "add only not nulls"
  {
    name: 'nulls inside a map that is new are dropped, the other values kept',
    original: {},
    patch: { complex: { nested: null, nested2: 'foo' } },
    expected: { complex: { nested2: 'foo' } },
  },
  // customStrategicMergePatchTestCaseData, "add key and delete all keys from map"
  {
    name: '$patch: replace at the top level drops every original key and keeps the patch keys',
    original: { name: 1, value: 1 },
    patch: { other: 'a', $patch: 'replace' },
    expected: { other: 'a' },
  },
  // customStrategicMergePatchTestCaseData, "delete map from nested map"
  {
    name: '$patch: delete on a nested map leaves that field as an empty map',
    original: { simpleMap: { key1: 1, key2: 1 } },
    patch: { simpleMap: { $patch: 'delete' } },
    expected: { simpleMap: {} },
  },
];

const mapListCases: UpstreamCase[] = [
  // customStrategicMergePatchTestCaseData, "delete all items from merging list"
  {
    name: 'a lone {$patch: replace} item empties a merging list',
    original: { mergingList: named(1, 2) },
    patch: { mergingList: [{ $patch: 'replace' }] },
    expected: { mergingList: [] },
  },
  // customStrategicMergePatchTestCaseData, "delete all duplicate entries in a merging list"
  {
    name: '$patch: delete removes every item carrying that merge key, duplicates included',
    original: { mergingList: [{ name: 1 }, { name: 1 }, { name: 2, value: 'a' }, { name: 3 }, { name: 3 }] },
    patch: { mergingList: [{ name: 1, $patch: 'delete' }, { name: 3, $patch: 'delete' }] },
    expected: { mergingList: [{ name: 2, value: 'a' }] },
  },
  // customStrategicMergePatchTestCaseData, "preserve the order from the patch in a merging list"
  {
    name: 'without $setElementOrder, merged items take the order of the patch list',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'b' }, { name: 3 }] },
    patch: { mergingList: [{ name: 3, value: 'c' }, { name: 1, value: 'a' }, { name: 2, other: 'x' }] },
    expected: { mergingList: [{ name: 3, value: 'c' }, { name: 1, value: 'a' }, { name: 2, value: 'b', other: 'x' }] },
  },
  // strategicMergePatchRawTestCases, "nested patch merge with empty list" (two-way)
  {
    name: 'a merging list that is new loses its {$patch: delete} items',
    original: { name: 'hi' },
    patch: { mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }] },
    expected: { name: 'hi', mergingList: [{ name: 'hello' }] },
  },
  // strategicMergePatchRawTestCases, "nested patch merge with empty list" (three-way)
  {
    name: '$setElementOrder naming a deleted item; the server-only item goes last',
    original: { name: 'hi', mergingList: [{ name: 'hello2' }] },
    patch: {
      '$setElementOrder/mergingList': [{ name: 'hello' }, { name: 'doesntexist' }],
      mergingList: [{ name: 'hello' }, { $patch: 'delete', name: 'doesntexist' }],
    },
    expected: { name: 'hi', mergingList: [{ name: 'hello' }, { name: 'hello2' }] },
  },
  // strategicMergePatchRawTestCases, "add map and delete map from merging list" (three-way)
  {
    name: 'add one item and delete another: the server-only item stays before the added one',
    original: { mergingList: [{ name: 1 }, { name: 2, other: 'b' }, { name: 4, other: 'c' }] },
    patch: {
      '$setElementOrder/mergingList': named(2, 3),
      mergingList: [{ name: 3 }, { name: 1, $patch: 'delete' }],
    },
    expected: { mergingList: [{ name: 2, other: 'b' }, { name: 4, other: 'c' }, { name: 3 }] },
  },
  // strategicMergePatchRawTestCases, "add map and delete map from merging list with conflict" (three-way)
  {
    name: 'add two items and delete one: the server-only item comes first',
    original: { mergingList: [{ name: 1, other: 'a' }, { name: 4, other: 'c' }] },
    patch: {
      '$setElementOrder/mergingList': named(2, 3),
      mergingList: [{ name: 2 }, { name: 3 }, { name: 1, $patch: 'delete' }],
    },
    expected: { mergingList: [{ name: 4, other: 'c' }, { name: 2 }, { name: 3 }] },
  },
  // strategicMergePatchRawTestCases, the second "add field to map in merging list nested in merging list with deletion conflict" (three-way)
  {
    name: '$setElementOrder inside a merged item orders its nested list',
    original: {
      mergingList: [{ name: 1, other: 'a', mergingList: [{ name: 2, value: 2, other: 'd' }] }, { name: 2, other: 'b' }],
    },
    patch: {
      '$setElementOrder/mergingList': named(1, 2),
      mergingList: [{ '$setElementOrder/mergingList': named(2, 1), name: 1, mergingList: [{ name: 1, value: 1 }] }],
    },
    expected: {
      mergingList: [
        { name: 1, other: 'a', mergingList: [{ name: 2, value: 2, other: 'd' }, { name: 1, value: 1 }] },
        { name: 2, other: 'b' },
      ],
    },
  },
  // strategicMergePatchRawTestCases, "set elements order in a list with server-only items 2" (three-way)
  {
    name: '$setElementOrder alone: a server-only item keeps its place between its live neighbours',
    original: { mergingList: [{ name: 1, other: 'a' }, { name: 2, value: 2 }, { name: 9 }, { name: 3, value: 3 }, { name: 4, value: 4 }] },
    patch: { '$setElementOrder/mergingList': named(2, 1, 4, 3) },
    expected: { mergingList: [{ name: 2, value: 2 }, { name: 1, other: 'a' }, { name: 9 }, { name: 4, value: 4 }, { name: 3, value: 3 }] },
  },
  // strategicMergePatchRawTestCases, "behavior of set element order for a merging list with duplicate" (three-way)
  {
    name: '$setElementOrder over duplicate merge keys groups the duplicates at the first place named',
    original: { mergingList: [{ name: 1 }, { name: 2, value: 'dup1' }, { name: 3 }, { name: 2, value: 'dup2' }, { name: 4 }] },
    patch: { '$setElementOrder/mergingList': named(2, 1, 4, 3, 2) },
    expected: { mergingList: [{ name: 2, value: 'dup1' }, { name: 2, value: 'dup2' }, { name: 1 }, { name: 4 }, { name: 3 }] },
  },
  // strategicMergePatchRawTestCases, "delete and reorder in one list, reorder in another"
  {
    name: 'two $setElementOrder directives in one map, one with a deletion',
    original: {
      mergingList: [{ name: 'a', value: 'a' }, { name: 'b', value: 'b' }],
      mergeItemPtr: [{ name: 'c', value: 'c' }, { name: 'd', value: 'd' }],
    },
    patch: {
      '$setElementOrder/mergingList': named('b'),
      '$setElementOrder/mergeItemPtr': named('d', 'c'),
      mergingList: [{ $patch: 'delete', name: 'a' }],
    },
    expected: {
      mergingList: [{ name: 'b', value: 'b' }],
      mergeItemPtr: [{ name: 'd', value: 'd' }, { name: 'c', value: 'c' }],
    },
  },
  // customStrategicMergePatchRawTestCases, "should check if order in $setElementOrder and patch list match"
  {
    name: 'a patch list whose order contradicts $setElementOrder is refused',
    original: { mergingList: named(1, 3, 2) },
    patch: { '$setElementOrder/mergingList': named(1, 2, 3), mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] },
    throws: /doesn't match/,
  },
];

const primitiveListCases: UpstreamCase[] = [
  // customStrategicMergePatchTestCaseData, the second "preserve the order from the patch in a merging int list"
  {
    name: 'without $setElementOrder, patched scalars take the patch order and the others fit around them',
    original: { mergingIntList: [1, 2, 3] },
    patch: { mergingIntList: [3, 1] },
    expected: { mergingIntList: [2, 3, 1] },
  },
  // strategicMergePatchRawTestCases, "add an item in a list of primitives and preserve order" (three-way)
  {
    name: '$setElementOrder on a scalar list, with an added value and a server-only value',
    original: { mergingIntList: [1, 4, 2] },
    patch: { '$setElementOrder/mergingIntList': [3, 1, 2], mergingIntList: [3] },
    expected: { mergingIntList: [3, 1, 4, 2] },
  },
  // strategicMergePatchRawTestCases, "add and delete an item in a int list and preserve order" (three-way)
  {
    name: 'add, $deleteFromPrimitiveList and $setElementOrder together on a scalar list',
    original: { mergingIntList: [1, 2, 3] },
    patch: { '$setElementOrder/mergingIntList': [4, 2, 1], mergingIntList: [4], '$deleteFromPrimitiveList/mergingIntList': [3] },
    expected: { mergingIntList: [4, 2, 1] },
  },
  // customStrategicMergePatchRawTestCases, "$deleteFromPrimitiveList should delete item from a list without merge patch strategy"
  {
    name: '$deleteFromPrimitiveList also works on a list without the merge strategy',
    original: { nonMergingIntList: [1, 2, 3] },
    patch: { '$deleteFromPrimitiveList/nonMergingIntList': [2] },
    expected: { nonMergingIntList: [1, 3] },
  },
];

const retainKeysCases: UpstreamCase[] = [
  // strategicMergePatchRawTestCases, "retainKeys map should clear defaulted field with conflict (discriminated union)" (three-way)
  {
    name: '$retainKeys switches a discriminated union: the old member is cleared',
    original: { retainKeysMap: { name: 'type1', value: 'foo' } },
    patch: { retainKeysMap: { $retainKeys: ['name', 'other'], name: 'type2', other: 'bar' } },
    expected: { retainKeysMap: { name: 'type2', other: 'bar' } },
  },
  // strategicMergePatchRawTestCases, "retainKeys map adds an item and deletes an item in nested merging int list" (three-way)
  {
    name: '$retainKeys with add, delete and order on a nested scalar list: the server-only value goes last',
    original: { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3, 4] } },
    patch: {
      retainKeysMap: {
        $retainKeys: ['mergingIntList', 'name'],
        mergingIntList: [5],
        '$deleteFromPrimitiveList/mergingIntList': [2],
        '$setElementOrder/mergingIntList': [1, 3, 5],
      },
    },
    expected: { retainKeysMap: { name: 'foo', mergingIntList: [1, 3, 5, 4] } },
  },
  // strategicMergePatchRawTestCases, "retainKeys map deletes an item in nested merging list" (three-way)
  {
    name: '$retainKeys with a deletion and $setElementOrder on a nested merging list',
    original: { retainKeysMap: { name: 'foo', mergingList: named('a', 'b', 'x') } },
    patch: {
      retainKeysMap: {
        $retainKeys: ['mergingList', 'name'],
        '$setElementOrder/mergingList': named('a'),
        mergingList: [{ name: 'b', $patch: 'delete' }],
      },
    },
    expected: { retainKeysMap: { name: 'foo', mergingList: named('a', 'x') } },
  },
  // strategicMergePatchRawTestCases, "retainKeys list of maps clears a field" (three-way)
  {
    name: '$retainKeys inside an item of a merge,retainKeys list clears the item\'s other keys',
    original: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a', other: 'x' }] },
    patch: {
      '$setElementOrder/retainKeysMergingList': named('bar', 'foo'),
      retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo' }],
    },
    expected: { retainKeysMergingList: [{ name: 'bar' }, { name: 'foo', value: 'a' }] },
  },
];

function check(c: UpstreamCase): void {
  const apply = (): unknown => strategicMergePatch(c.original, c.patch, mergeItem);
  if (c.throws !== undefined) {
    assert.throws(apply, c.throws);
    return;
  }
  assert.deepEqual(apply(), c.expected);
}

describe('strategic merge patch, as upstream applies it', () => {
  describe('maps and nulls', () => {
    for (const c of mapCases) it(c.name, () => check(c));
  });
  describe('merging lists of maps', () => {
    for (const c of mapListCases) it(c.name, () => check(c));
  });
  describe('lists of scalars', () => {
    for (const c of primitiveListCases) it(c.name, () => check(c));
  });
  describe('retainKeys', () => {
    for (const c of retainKeysCases) it(c.name, () => check(c));
  });
});
