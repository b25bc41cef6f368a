import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * JSON Schema builders for specs. The same schema objects validate requests (ajv) and are
 * published in the OpenAPI document (`openapi.ts`), so the two cannot drift.
 */
export type JsonSchema = Record<string, unknown>;

export const schema = {
  string: (extra: JsonSchema = {}): JsonSchema => ({ type: 'string', ...extra }),
  integer: (extra: JsonSchema = {}): JsonSchema => ({ type: 'integer', ...extra }),
  number: (extra: JsonSchema = {}): JsonSchema => ({ type: 'number', ...extra }),
  boolean: (extra: JsonSchema = {}): JsonSchema => ({ type: 'boolean', ...extra }),
  enumOf: (values: readonly string[], defaultValue?: string): JsonSchema => ({
    type: 'string',
    enum: [...values],
    ...(defaultValue === undefined ? {} : { default: defaultValue }),
  }),
  /** An empty message `{}`: a one-of member that carries no data. `null` means "not chosen". */
  empty: (description: string): JsonSchema => ({ type: 'object', nullable: true, additionalProperties: false, properties: {}, description }),
  object: (properties: Record<string, JsonSchema>, required: readonly string[] = [], extra: JsonSchema = {}): JsonSchema => ({
    type: 'object',
    additionalProperties: false,
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    ...extra,
  }),
  arrayOf: (items: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({ type: 'array', items, ...extra }),
  /** A reference to another object; tenant and namespace default to the referrer's. */
  ref: (description: string): JsonSchema =>
    schema.object(
      {
        tenant: { type: 'string' },
        namespace: { type: 'string' },
        name: { type: 'string', minLength: 1 },
        kind: { type: 'string' },
      },
      ['name'],
      { description, nullable: true },
    ),
  nullable: (inner: JsonSchema): JsonSchema => ({ ...inner, nullable: true }),
};

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, strictRequired: false });
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

/** Validates (and fills schema defaults into) `value`; resolves to messages naming each field. */
export function validateAgainst(s: JsonSchema, value: unknown, root: string): string[] {
  let validate = compiled.get(s);
  if (validate === undefined) {
    validate = ajv.compile(s);
    compiled.set(s, validate);
  }
  if (validate(value)) return [];
  return (validate.errors ?? []).slice(0, 8).map((e) => describeError(e, root));
}

function fieldPath(root: string, pointer: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return parts.reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : `${path}.${part}`), root);
}

function describeError(e: ErrorObject, root: string): string {
  const at = fieldPath(root, e.instancePath);
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
      return `${at}.${String(params['additionalProperty'])}: unknown field`;
    case 'required':
      return `${at}.${String(params['missingProperty'])}: is required`;
    case 'enum':
      return `${at}: must be one of ${(params['allowedValues'] as string[]).join(', ')}`;
    case 'type':
      return `${at}: must be ${String(params['type'])}`;
    default:
      return `${at}: ${e.message ?? 'is not valid'}`;
  }
}
