import { asObject, gnosticFields, gnosticObject, named, type Json } from './gnostic-fields.js';

const SPECIAL = ['type', 'items', 'properties', 'additionalProperties', 'allOf', 'xml', 'externalDocs'];

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/**
 * An OpenAPI v2 Schema as gnostic's `Schema`: `type` → `TypeItem { value }`, `items` →
 * `ItemsItem { schema[] }`, `properties` → `Properties { additionalProperties[] }` of named
 * schemas, `additionalProperties` → `{ schema }` or `{ boolean }`, `allOf` recursively; the
 * rest as `gnosticFields` (so `$ref`, `default`, `enum`, `x-` keys).
 */
export function gnosticSchema(value: unknown): Json {
  const json = asObject(value) ?? {};
  const out = gnosticFields(json, SPECIAL);
  if (json['type'] !== undefined) out['type'] = { value: list(json['type']).map(String) };
  if (json['items'] !== undefined) out['items'] = { schema: list(json['items']).map(gnosticSchema) };
  if (json['properties'] !== undefined) out['properties'] = { additionalProperties: named(json['properties'], gnosticSchema) };
  const additional = json['additionalProperties'];
  if (typeof additional === 'boolean') out['additionalProperties'] = { boolean: additional };
  else if (asObject(additional) !== undefined) out['additionalProperties'] = { schema: gnosticSchema(additional) };
  if (Array.isArray(json['allOf'])) out['allOf'] = json['allOf'].map(gnosticSchema);
  const xml = gnosticObject(json['xml']);
  if (xml !== undefined) out['xml'] = xml;
  const externalDocs = gnosticObject(json['externalDocs']);
  if (externalDocs !== undefined) out['externalDocs'] = externalDocs;
  return out;
}
