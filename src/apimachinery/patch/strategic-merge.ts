import { isDeepStrictEqual } from 'node:util';
import type { FieldPatchInfo, PatchSchema } from './patch-schema.js';

/**
 * Strategic merge patch (`k8s.io/apimachinery/pkg/util/strategicpatch`), applied to a JSON
 * document. Maps merge key by key (`null` deletes). Lists whose field has the `merge`
 * strategy merge: lists of objects by their merge key, lists of scalars as a union; other
 * lists are replaced. Directives:
 * - `$patch: replace` in a map replaces the whole map; in a list of objects, an item
 *   `{$patch: replace}` replaces the whole list;
 * - `$patch: delete` deletes a map, or (with its merge key) one item of a merging list;
 * - `$patch: merge` is the default;
 * - `$retainKeys: [...]` keeps only those keys (fields with the retainKeys strategy);
 * - `$deleteFromPrimitiveList/<field>: [...]` removes values from a merging list of scalars;
 * - `$setElementOrder/<field>: [...]` orders a merging list.
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
  const result = mergeMap(isMap(original) ? structuredClone(original) : {}, structuredClone(patch), schema);
  return result === DELETED ? {} : result;
}

const DELETED = Symbol('deleted');

function mergeMap(original: JsonMap, patch: JsonMap, schema: PatchSchema | undefined): JsonMap | typeof DELETED {
  const directive = patch[PATCH];
  if (directive !== undefined) {
    delete patch[PATCH];
    switch (directive) {
      case 'replace':
        return stripDirectives(patch, schema);
      case 'delete':
        return DELETED;
      case 'merge':
        break;
      default:
        throw new PatchError(`unknown patch type: ${JSON.stringify(directive)} in map`);
    }
  }

  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    delete patch[RETAIN_KEYS];
    if (!Array.isArray(retain)) throw new PatchError(`${RETAIN_KEYS} must be a list of keys`);
    for (const key of Object.keys(original)) if (!retain.includes(key)) delete original[key];
  }

  // Directives about lists are applied with (after) the list they name.
  const deletions = new Map<string, Json[]>();
  const orders = new Map<string, Json[]>();
  for (const key of Object.keys(patch)) {
    if (key.startsWith(DELETE_FROM_PRIMITIVE)) {
      const values = patch[key];
      if (!Array.isArray(values)) throw new PatchError(`${key} must be a list`);
      deletions.set(key.slice(DELETE_FROM_PRIMITIVE.length), values);
      delete patch[key];
    } else if (key.startsWith(SET_ELEMENT_ORDER)) {
      const values = patch[key];
      if (!Array.isArray(values)) throw new PatchError(`${key} must be a list`);
      orders.set(key.slice(SET_ELEMENT_ORDER.length), values);
      delete patch[key];
    } else if (key.startsWith('$')) {
      throw new PatchError(`unknown directive "${key}"`);
    }
  }

  const serverOrder = new Map<string, Json[]>();
  for (const key of orders.keys()) {
    const list = original[key];
    serverOrder.set(key, Array.isArray(list) ? [...list] : []);
  }

  for (const [key, patchValue] of Object.entries(patch)) {
    const info = schema?.field(key) ?? { strategies: [] };
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    if (isMap(patchValue)) {
      const merged = mergeMap(isMap(current) ? current : {}, patchValue, info.schema);
      if (merged === DELETED) delete original[key];
      else original[key] = merged;
    } else if (Array.isArray(patchValue)) {
      original[key] = mergeList(Array.isArray(current) ? current : [], patchValue, info);
    } else {
      original[key] = patchValue;
    }
  }

  for (const [key, values] of deletions) {
    const list = original[key];
    if (Array.isArray(list)) original[key] = list.filter((item) => !values.some((v) => isDeepStrictEqual(v, item)));
  }
  for (const [key, order] of orders) {
    const list = original[key];
    if (Array.isArray(list)) original[key] = applyElementOrder(list, order, serverOrder.get(key) ?? [], schema?.field(key).mergeKey);
  }
  return original;
}

/** A patch value placed where the original has nothing: its directives are applied to an empty original. */
function stripDirectives(value: JsonMap, schema: PatchSchema | undefined): JsonMap {
  const merged = mergeMap({}, value, schema);
  return merged === DELETED ? {} : merged;
}

function mergeList(original: Json[], patch: Json[], info: FieldPatchInfo): Json[] {
  if (!info.strategies.includes('merge')) {
    return patch.map((item) => (isMap(item) ? stripDirectives(item, info.schema) : item));
  }
  const objects = patch.some(isMap) || original.some(isMap);
  if (!objects) {
    const union = [...original];
    for (const item of patch) if (!union.some((u) => isDeepStrictEqual(u, item))) union.push(item);
    return union;
  }
  const mergeKey = info.mergeKey;
  if (mergeKey === undefined) throw new PatchError('a merging list of objects needs a merge key');
  // An item {$patch: replace} replaces the whole list with the other items.
  const replaceAll = patch.some((item) => isMap(item) && item[PATCH] === 'replace' && Object.keys(item).length === 1);
  if (replaceAll) {
    return patch.filter((item) => !(isMap(item) && item[PATCH] === 'replace' && Object.keys(item).length === 1)).map((item) => (isMap(item) ? stripDirectives(item, info.schema) : item));
  }
  const result = [...original];
  for (const item of patch) {
    if (!isMap(item)) throw new PatchError(`a list merged by "${mergeKey}" must hold objects`);
    const key = item[mergeKey];
    if (key === undefined) throw new PatchError(`map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`);
    const at = result.findIndex((existing) => isMap(existing) && isDeepStrictEqual(existing[mergeKey], key));
    if (item[PATCH] === 'delete') {
      if (at >= 0) result.splice(at, 1);
      continue;
    }
    if (at >= 0) {
      const merged = mergeMap(result[at] as JsonMap, item, info.schema);
      if (merged === DELETED) result.splice(at, 1);
      else result[at] = merged;
    } else {
      result.push(stripDirectives(item, info.schema));
    }
  }
  return result;
}

/**
 * Orders a merged list by `$setElementOrder` as Kubernetes does (`normalizeElementOrder`):
 * the items named in the order come in that order; items only the server had are interleaved
 * by their place in the server's list, before an ordered item only when both were on the
 * server and the server had them in that order.
 */
function applyElementOrder(list: Json[], order: Json[], serverOrder: Json[], mergeKey: string | undefined): Json[] {
  const identity = (item: Json): Json => (mergeKey !== undefined && isMap(item) ? (item[mergeKey] ?? null) : item);
  const indexIn = (items: Json[], item: Json): number => items.findIndex((o) => isDeepStrictEqual(identity(o), identity(item)));
  const ordered = list.filter((item) => indexIn(order, item) >= 0).sort((a, b) => indexIn(order, a) - indexIn(order, b));
  const serverOnly = list.filter((item) => indexIn(order, item) < 0);
  const merged: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < serverOnly.length || j < ordered.length) {
    if (j >= ordered.length) merged.push(serverOnly[i++] as Json);
    else if (i >= serverOnly.length) merged.push(ordered[j++] as Json);
    else {
      const left = serverOnly[i] as Json;
      const right = ordered[j] as Json;
      const li = indexIn(serverOrder, left);
      const ri = indexIn(serverOrder, right);
      if (li >= 0 && ri >= 0 && li < ri) merged.push(serverOnly[i++] as Json);
      else merged.push(ordered[j++] as Json);
    }
  }
  return merged;
}
