import { isDeepStrictEqual } from 'node:util';
import type { FieldPatchInfo, PatchSchema } from './patch-schema.js';

/**
 * Strategic merge patch (`k8s.io/apimachinery/pkg/util/strategicpatch`), applied to a JSON
 * document with upstream's semantics (checked against upstream's test cases in
 * strategic-merge-upstream.test.ts):
 * - maps merge key by key; `null` deletes; values of another type replace;
 * - a list whose field has the `merge` strategy merges — objects by their merge key, scalars
 *   as a union — and comes out in the patch's order, with items only the server had fitted in
 *   by their place on the server (upstream's `normalizeElementOrder`); other lists, and fields
 *   with the `replace` strategy, are replaced;
 * - `$patch: replace` replaces a map, and an item `{$patch: replace}` the whole list;
 *   `$patch: delete` empties a map (removes it when the original did not have it) and, in a
 *   merging list, deletes every item with that merge key; `$patch: merge` is the default;
 * - `$retainKeys: [...]` keeps only those keys (every key the patch sets must be listed);
 * - `$deleteFromPrimitiveList/<field>: [...]` removes values from a list of scalars;
 * - `$setElementOrder/<field>: [...]` orders a merging list (the patch list must follow it).
 * Throws {@link PatchError} on malformed patches.
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

const PATCH = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const isMap = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

export function strategicMergePatch(original: unknown, patch: unknown, schema: PatchSchema): unknown {
  if (!isMap(patch)) throw new PatchError('a strategic merge patch must be a JSON object');
  return mergeMap(isMap(original) ? structuredClone(original) : {}, structuredClone(patch), schema);
}

function fieldInfo(schema: PatchSchema | undefined, key: string): FieldPatchInfo {
  return schema?.field(key) ?? { strategies: [] };
}

function mergeMap(original: JsonMap, patch: JsonMap, schema: PatchSchema | undefined): JsonMap {
  const directive = patch[PATCH];
  if (directive !== undefined) {
    delete patch[PATCH];
    switch (directive) {
      case 'replace':
        return mergeMap({}, patch, schema);
      case 'delete':
        return {};
      case 'merge':
        break;
      default:
        throw new PatchError(`unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(patch)}`);
    }
  }
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);

  for (const [rawKey, patchValue] of Object.entries(patch)) {
    if (rawKey.startsWith(DELETE_FROM_PRIMITIVE)) {
      const key = rawKey.slice(DELETE_FROM_PRIMITIVE.length);
      if (!Array.isArray(patchValue)) throw new PatchError(`${rawKey} must be a list`);
      const list = original[key];
      if (Array.isArray(list)) original[key] = list.filter((item) => !patchValue.some((v) => isDeepStrictEqual(v, item)));
      continue;
    }
    if (rawKey.startsWith('$')) throw new PatchError(`unknown directive "${rawKey}"`);
    const key = rawKey;
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const info = fieldInfo(schema, key);
    const current = original[key];
    if (current === undefined || Array.isArray(current) !== Array.isArray(patchValue) || isMap(current) !== isMap(patchValue)) {
      // Not in the original (or of another type): the patch value, without its directives.
      const value = removeDirectives(patchValue, info.schema);
      if (value === undefined) delete original[key];
      else original[key] = value;
    } else if (isMap(patchValue) && isMap(current)) {
      original[key] = info.strategies.includes('replace') ? (removeDirectives(patchValue, info.schema) as JsonMap) : mergeMap(current, patchValue, info.schema);
    } else if (Array.isArray(patchValue) && Array.isArray(current)) {
      original[key] = mergeListField(current, patchValue, info).merged;
    } else {
      original[key] = patchValue;
    }
  }
  return original;
}

/** `$retainKeys`: drop the original's keys not listed; the patch may set only listed keys. */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  const retain = patch[RETAIN_KEYS];
  if (retain === undefined) return;
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) throw new PatchError(`${RETAIN_KEYS} must be a list of keys`);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || key.startsWith(DELETE_FROM_PRIMITIVE) || key.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!retain.includes(key)) throw new PatchError(`invalid patch format of retainKeys: "${key}" is set but not listed in ${RETAIN_KEYS}`);
  }
  for (const key of Object.keys(original)) if (!retain.includes(key)) delete original[key];
}

/** `$setElementOrder/<field>`: merge that field's list now and order it (upstream's mergePatchIntoOriginal). */
function mergeOrderedLists(original: JsonMap, patch: JsonMap, schema: PatchSchema | undefined): void {
  for (const directive of Object.keys(patch).filter((k) => k.startsWith(SET_ELEMENT_ORDER))) {
    const key = directive.slice(SET_ELEMENT_ORDER.length);
    const order = patch[directive];
    delete patch[directive];
    if (!Array.isArray(order)) throw new PatchError(`${directive} must be a list`);
    const info = fieldInfo(schema, key);
    const patchList = patch[key];
    delete patch[key];
    if (patchList !== undefined && patchList !== null && !Array.isArray(patchList)) throw new PatchError(`${key} must be a list to go with ${directive}`);
    const current = Array.isArray(original[key]) ? (original[key]) : undefined;
    if (patchList === null) {
      delete original[key];
      continue;
    }
    if (patchList !== undefined) checkPatchFollowsOrder(patchList, order, info.mergeKey, directive);
    let merged: Json[];
    let serverView: Json[];
    if (patchList === undefined) {
      merged = current ?? [];
      serverView = merged;
    } else if (current === undefined) {
      merged = (removeDirectives(patchList, info.schema) as Json[] | undefined) ?? [];
      serverView = [];
    } else {
      ({ merged, serverView } = mergeListField(current, patchList, info));
    }
    if (merged.length === 0 && current === undefined) continue;
    const mergeKey = isMapList(merged) ? info.mergeKey : undefined;
    const [inOrder, serverOnly] = partition(merged, order, mergeKey);
    original[key] = normalizeElementOrder(inOrder, serverOnly, order, serverView, mergeKey);
  }
}

function isMapList(list: Json[]): boolean {
  return list.some(isMap);
}

/** Upstream's validatePatchWithSetOrderList: the patch list must follow `$setElementOrder`. */
function checkPatchFollowsOrder(patchList: Json[], order: Json[], mergeKey: string | undefined, directive: string): void {
  const items = patchList.filter((item) => !(isMap(item) && item[PATCH] === 'delete'));
  if (items.length === 0 || order.length === 0) return;
  let p = 0;
  let o = 0;
  while (p < items.length && o < order.length) {
    const item = items[p] as Json;
    if (isMap(item) && PATCH in item) {
      p++;
      continue;
    }
    if (isDeepStrictEqual(identity(item, mergeKey), identity(order[o] as Json, mergeKey))) p++;
    o++;
  }
  if (p < items.length) throw new PatchError(`the order in the patch list ${JSON.stringify(patchList)} doesn't match the ${directive} list ${JSON.stringify(order)}`);
}

function identity(item: Json, mergeKey: string | undefined): Json {
  return mergeKey !== undefined && isMap(item) ? (item[mergeKey] ?? null) : item;
}

function indexIn(list: readonly Json[], item: Json, mergeKey: string | undefined): number {
  const id = identity(item, mergeKey);
  return list.findIndex((o) => isDeepStrictEqual(identity(o, mergeKey), id));
}

function partition(list: Json[], by: readonly Json[], mergeKey: string | undefined): [Json[], Json[]] {
  const present = list.filter((item) => indexIn(by, item, mergeKey) >= 0);
  const absent = list.filter((item) => indexIn(by, item, mergeKey) < 0);
  return [present, absent];
}

/**
 * Merges a list field. `merged` is the result; `serverView` is the server order upstream
 * compares against afterwards for `$setElementOrder`: its in-place deletes and appends on
 * the original's backing array leave the original's first `length` slots as they are here.
 */
function mergeListField(original: Json[], patch: Json[], info: FieldPatchInfo): { merged: Json[]; serverView: Json[] } {
  if (!info.strategies.includes('merge')) {
    const replaced = (removeDirectives(patch, info.schema) as Json[] | undefined) ?? [];
    return { merged: replaced, serverView: replaced };
  }
  if (!isMapList(patch) && !isMapList(original)) {
    const union: Json[] = [];
    for (const item of [...original, ...patch]) if (!union.some((u) => isDeepStrictEqual(u, item))) union.push(item);
    const [fromPatch, serverOnly] = partition(union, patch, undefined);
    return { merged: normalizeElementOrder(fromPatch, serverOnly, patch, original, undefined), serverView: original };
  }
  const mergeKey = info.mergeKey;
  if (mergeKey === undefined) throw new PatchError('cannot merge lists without merge key');
  let remaining = [...original];
  const items: JsonMap[] = [];
  let replace = false;
  for (const item of patch) {
    if (!isMap(item)) throw new PatchError(`a list merged by "${mergeKey}" must hold objects, found ${JSON.stringify(item)}`);
    const directive = item[PATCH];
    if (directive === undefined) {
      items.push(item);
    } else if (directive === 'delete') {
      const key = item[mergeKey];
      if (key === undefined) throw new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
      remaining = remaining.filter((existing) => !(isMap(existing) && isDeepStrictEqual(existing[mergeKey], key)));
    } else if (directive === 'replace') {
      replace = true;
    } else if (directive === 'merge') {
      throw new PatchError('merging lists cannot yet be specified in the patch');
    } else {
      throw new PatchError(`unknown patch type: ${JSON.stringify(directive)} in map: ${JSON.stringify(item)}`);
    }
  }
  if (replace) {
    const replaced = items.map((item) => removeDirectives(item, info.schema) as Json);
    return { merged: replaced, serverView: replaced };
  }
  const merged = [...remaining];
  const appended: Json[] = [];
  for (const item of items) {
    const key = item[mergeKey];
    if (key === undefined) throw new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const at = merged.findIndex((existing) => isMap(existing) && isDeepStrictEqual(existing[mergeKey], key));
    if (at >= 0) {
      merged[at] = mergeMap(merged[at] as JsonMap, item, info.schema);
    } else {
      const added = removeDirectives(item, info.schema) as Json;
      merged.push(added);
      appended.push(added);
    }
  }
  const [fromPatch, serverOnly] = partition(merged, items, mergeKey);
  return {
    merged: normalizeElementOrder(fromPatch, serverOnly, items, remaining, mergeKey),
    serverView: [...remaining, ...appended].slice(0, original.length),
  };
}

/**
 * Upstream's normalizeElementOrder: the patch's items in the patch's order, the server-only
 * items in the server's order, interleaved: a server-only item goes first only when both are
 * on the server and it comes earlier there.
 */
function normalizeElementOrder(fromPatch: Json[], serverOnly: Json[], patchOrder: readonly Json[], serverOrder: readonly Json[], mergeKey: string | undefined): Json[] {
  const byOrder = (order: readonly Json[]) => (a: Json, b: Json): number => {
    const ia = indexIn(order, a, mergeKey);
    const ib = indexIn(order, b, mergeKey);
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  };
  const right = [...fromPatch].sort(byOrder(patchOrder));
  const left = [...serverOnly].sort(byOrder(serverOrder));
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) out.push(left[i++] as Json);
    else if (i >= left.length) out.push(right[j++] as Json);
    else {
      const li = indexIn(serverOrder, left[i] as Json, mergeKey);
      const ri = indexIn(serverOrder, right[j] as Json, mergeKey);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] as Json);
      else out.push(right[j++] as Json);
    }
  }
  return out;
}

/**
 * A patch value placed where the original has nothing: directives applied to nothing
 * (`$patch: delete` → undefined, so the key is not added), `null` members dropped.
 */
function removeDirectives(value: Json, schema: PatchSchema | undefined): Json | undefined {
  if (Array.isArray(value)) {
    return value.flatMap((item) => {
      if (isMap(item) && item[PATCH] === 'delete') return [];
      if (isMap(item) && item[PATCH] === 'replace' && Object.keys(item).length === 1) return [];
      const stripped = removeDirectives(item, schema);
      return stripped === undefined ? [] : [stripped];
    });
  }
  if (!isMap(value)) return value;
  if (value[PATCH] === 'delete') return undefined;
  const copy = { ...value };
  if (copy[PATCH] === 'replace' || copy[PATCH] === 'merge') delete copy[PATCH];
  return mergeMap({}, copy, schema);
}
