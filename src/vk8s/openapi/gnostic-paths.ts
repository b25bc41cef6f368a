import { asObject, gnosticAny, gnosticFields, gnosticObject, named, type Json } from './gnostic-fields.js';
import { gnosticSchema } from './gnostic-schema.js';

const OPERATIONS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

const SUB_SCHEMA: Readonly<Record<string, string>> = {
  header: 'headerParameterSubSchema',
  formData: 'formDataParameterSubSchema',
  query: 'queryParameterSubSchema',
  path: 'pathParameterSubSchema',
};

/** `items` of a non-body parameter or header: gnostic's `PrimitivesItems`, nested. */
function primitivesItems(value: unknown): Json | undefined {
  const json = asObject(value);
  if (json === undefined) return undefined;
  const out = gnosticFields(json, ['items']);
  const items = primitivesItems(json['items']);
  if (items !== undefined) out['items'] = items;
  return out;
}

/** A parameter as gnostic's `Parameter`: a `BodyParameter`, or a `NonBodyParameter` by `in`. */
export function gnosticParameter(value: unknown): Json {
  const json = asObject(value) ?? {};
  if (json['in'] === 'body') return { bodyParameter: { ...gnosticFields(json, ['schema']), ...(json['schema'] === undefined ? {} : { schema: gnosticSchema(json['schema']) }) } };
  const sub = gnosticFields(json, ['items']);
  const items = primitivesItems(json['items']);
  if (items !== undefined) sub['items'] = items;
  return { nonBodyParameter: { [SUB_SCHEMA[String(json['in'])] ?? 'queryParameterSubSchema']: sub } };
}

/** An entry of a `parameters` list: a `JsonReference` for `$ref`, else a `Parameter`. */
function parametersItem(value: unknown): Json {
  const json = asObject(value) ?? {};
  if (typeof json['$ref'] === 'string') return { jsonReference: gnosticFields(json) };
  return { parameter: gnosticParameter(json) };
}

/** A response as gnostic's `Response` (its schema a `SchemaItem`: `file` or a schema). */
export function gnosticResponse(value: unknown): Json {
  const json = asObject(value) ?? {};
  const out = gnosticFields(json, ['schema', 'headers', 'examples']);
  const schema = asObject(json['schema']);
  if (schema !== undefined) out['schema'] = schema['type'] === 'file' ? { fileSchema: gnosticFields(schema, ['externalDocs']) } : { schema: gnosticSchema(schema) };
  if (json['headers'] !== undefined) {
    out['headers'] = { additionalProperties: named(json['headers'], (header) => ({ ...gnosticFields(asObject(header) ?? {}, ['items']), items: primitivesItems(asObject(header)?.['items']) })) };
  }
  if (json['examples'] !== undefined) out['examples'] = { additionalProperties: named(json['examples'], gnosticAny) };
  return out;
}

function responses(value: unknown): Json {
  const responseCode: Json[] = [];
  const vendorExtension: Json[] = [];
  for (const [code, response] of Object.entries(asObject(value) ?? {})) {
    if (code.startsWith('x-')) vendorExtension.push({ name: code, value: gnosticAny(response) });
    else if (typeof asObject(response)?.['$ref'] === 'string') responseCode.push({ name: code, value: { jsonReference: gnosticFields(asObject(response) ?? {}) } });
    else responseCode.push({ name: code, value: { response: gnosticResponse(response) } });
  }
  return { responseCode, vendorExtension };
}

/** A security requirement list (`[{BearerToken: []}]`) as gnostic's `SecurityRequirement`s. */
export function gnosticSecurity(value: unknown): Json[] {
  return (Array.isArray(value) ? value : []).map((requirement) => ({ additionalProperties: named(requirement, (scopes) => ({ value: Array.isArray(scopes) ? scopes.map(String) : [] })) }));
}

function operation(value: unknown): Json {
  const json = asObject(value) ?? {};
  const out = gnosticFields(json, ['parameters', 'responses', 'externalDocs', 'security']);
  if (Array.isArray(json['parameters'])) out['parameters'] = json['parameters'].map(parametersItem);
  if (json['responses'] !== undefined) out['responses'] = responses(json['responses']);
  const externalDocs = gnosticObject(json['externalDocs']);
  if (externalDocs !== undefined) out['externalDocs'] = externalDocs;
  if (json['security'] !== undefined) out['security'] = gnosticSecurity(json['security']);
  return out;
}

function pathItem(value: unknown): Json {
  const json = asObject(value) ?? {};
  const out = gnosticFields(json, [...OPERATIONS, 'parameters']);
  for (const method of OPERATIONS) if (json[method] !== undefined) out[method] = operation(json[method]);
  if (Array.isArray(json['parameters'])) out['parameters'] = json['parameters'].map(parametersItem);
  return out;
}

/**
 * `paths` as gnostic's `Paths`: one `NamedPathItem` per path (in order), each with its
 * operations (parameters, responses, `x-kubernetes-action` and `x-kubernetes-group-version-kind`
 * as vendor extensions) and path-level parameters; `x-` keys of `paths` as vendor extensions.
 */
export function gnosticPaths(value: unknown): Json {
  const path: Json[] = [];
  const vendorExtension: Json[] = [];
  for (const [name, item] of Object.entries(asObject(value) ?? {})) {
    if (name.startsWith('x-')) vendorExtension.push({ name, value: gnosticAny(item) });
    else path.push({ name, value: pathItem(item) });
  }
  return { path, vendorExtension };
}
