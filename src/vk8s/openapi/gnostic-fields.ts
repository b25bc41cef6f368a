/**
 * The shared part of turning OpenAPI v2 JSON into gnostic's `openapi.v2` messages (in
 * protobufjs' camel-case field names): plain keys map across unchanged, `$ref` becomes
 * `_ref`, `default`/`example`/`enum` values become `Any { yaml }` holding the value as JSON
 * text (JSON is YAML, which is what kube-openapi parses), and every `x-` key becomes a
 * `vendorExtension` entry the same way.
 */
export type Json = Record<string, unknown>;

/** gnostic's `Any` for a free-form value. */
export function gnosticAny(value: unknown): Json {
  return { yaml: JSON.stringify(value) };
}

export function asObject(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A map as gnostic's repeated `Named*` entries, in key order. */
export function named(value: unknown, convert: (member: unknown) => unknown): Json[] {
  return Object.entries(asObject(value) ?? {}).map(([name, member]) => ({ name, value: convert(member) }));
}

/**
 * Every key of `json` except those in `special` (which the caller converts itself), mapped as
 * described above. Keys the target message lacks are ignored by protobufjs' `fromObject`.
 */
export function gnosticFields(json: Json, special: readonly string[] = []): Json {
  const out: Json = {};
  const extensions: Json[] = [];
  for (const [key, value] of Object.entries(json)) {
    if (value === undefined || special.includes(key)) continue;
    if (key.startsWith('x-')) extensions.push({ name: key, value: gnosticAny(value) });
    else if (key === '$ref') out['_ref'] = value;
    else if (key === 'default' || key === 'example') out[key] = gnosticAny(value);
    else if (key === 'enum') out[key] = (Array.isArray(value) ? value : [value]).map(gnosticAny);
    else out[key] = value;
  }
  if (extensions.length > 0) out['vendorExtension'] = extensions;
  return out;
}

/** `gnosticFields` of an object value, or undefined when it is not one. */
export function gnosticObject(value: unknown, special: readonly string[] = []): Json | undefined {
  const json = asObject(value);
  return json === undefined ? undefined : gnosticFields(json, special);
}
