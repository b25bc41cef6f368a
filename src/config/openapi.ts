import { NAMESPACE_KIND, NAMESPACED_KINDS, type ConfigKind } from './kinds/index.js';
import { RESPONSE_FORMATS } from './get-response.js';
import { schema, type JsonSchema } from './spec-schema.js';

const metadata = schema.object(
  {
    name: schema.string(),
    namespace: schema.string(),
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    description: schema.string(),
    disable: schema.boolean(),
  },
  ['name'],
);
const systemMetadata: JsonSchema = {
  type: 'object',
  properties: {
    uid: schema.string({ format: 'uuid' }),
    creation_timestamp: schema.string({ format: 'date-time' }),
    deletion_timestamp: schema.string({ nullable: true }),
    modification_timestamp: schema.string({ nullable: true }),
    initializers: { type: 'object', nullable: true },
    finalizers: schema.arrayOf(schema.string()),
    tenant: schema.string(),
    creator_class: schema.string(),
    creator_id: schema.string(),
    object_index: schema.integer(),
    owner_view: { type: 'object', nullable: true },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
  },
};
const errorSchema = schema.object({ code: schema.integer(), details: schema.arrayOf({ type: 'object' }), message: schema.string() });
const refWithKind = schema.object({ kind: schema.string(), uid: schema.string(), tenant: schema.string(), namespace: schema.string(), name: schema.string() });

function componentsFor(kind: ConfigKind): Record<string, JsonSchema> {
  const n = kind.kind;
  const spec = { $ref: `#/components/schemas/${n}.spec` };
  return {
    [`${n}.spec`]: kind.specSchema,
    [`${n}.create_request`]: schema.object({ metadata: { $ref: '#/components/schemas/metadata' }, spec }, ['metadata']),
    [`${n}.replace_request`]: schema.object({ metadata: { $ref: '#/components/schemas/metadata' }, spec, resource_version: schema.string() }, ['metadata']),
    [`${n}.object`]: schema.object({ metadata: { $ref: '#/components/schemas/metadata' }, system_metadata: { $ref: '#/components/schemas/system_metadata' }, spec }),
    [`${n}.get_response`]: {
      type: 'object',
      properties: {
        object: { type: 'object', nullable: true },
        create_form: { type: 'object', nullable: true },
        replace_form: { type: 'object', nullable: true },
        resource_version: schema.string(),
        metadata: { $ref: '#/components/schemas/metadata' },
        system_metadata: { $ref: '#/components/schemas/system_metadata' },
        spec,
        status: schema.arrayOf({ type: 'object' }),
        referring_objects: schema.arrayOf(refWithKind),
        deleted_referred_objects: schema.arrayOf(refWithKind),
        disabled_referred_objects: schema.arrayOf(refWithKind),
      },
    },
  };
}

const json = (ref: string): JsonSchema => ({ content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } });
const errors: JsonSchema = Object.fromEntries(
  ['400', '401', '403', '404', '405', '409', '429', '500', '503'].map((code) => [code, { description: 'Error', ...json('error') }]),
);
const nsParam = { name: 'namespace', in: 'path', required: true, schema: { type: 'string' } };
const nameParam = { name: 'name', in: 'path', required: true, schema: { type: 'string' } };

function pathsFor(kind: ConfigKind): Record<string, unknown> {
  const n = kind.kind;
  const base = kind === NAMESPACE_KIND ? '/api/web/namespaces' : `/api/${kind.slug}/namespaces/{namespace}/${n}s`;
  const params = kind === NAMESPACE_KIND ? [] : [nsParam];
  const collection: Record<string, unknown> = {
    get: {
      operationId: `list_${n}`,
      summary: `List ${n} objects`,
      parameters: [...params, { name: 'label_filter', in: 'query', schema: { type: 'string' }, description: 'Kubernetes label selector' }, { name: 'report_fields', in: 'query', schema: { type: 'string' } }],
      responses: { '200': { description: 'The objects', content: { 'application/json': { schema: schema.object({ items: schema.arrayOf({ type: 'object' }), errors: schema.arrayOf({ type: 'object' }) }) } } }, ...errors },
    },
  };
  if (kind.publicCreate) {
    collection['post'] = {
      operationId: `create_${n}`,
      summary: `Create a ${n}`,
      parameters: params,
      requestBody: { required: true, ...json(`${n}.create_request`) },
      responses: { '200': { description: 'The created object', ...json(`${n}.object`) }, ...errors },
    };
  }
  const item: Record<string, unknown> = {
    get: {
      operationId: `get_${n}`,
      parameters: [...params, nameParam, { name: 'response_format', in: 'query', schema: { type: 'string', enum: [...RESPONSE_FORMATS, ...RESPONSE_FORMATS.map((_, i) => String(i))] } }],
      responses: { '200': { description: 'The object', ...json(`${n}.get_response`) }, ...errors },
    },
    put: {
      operationId: `replace_${n}`,
      parameters: [...params, nameParam],
      requestBody: { required: true, ...json(`${n}.replace_request`) },
      responses: { '200': { description: 'Replaced', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors },
    },
  };
  if (kind !== NAMESPACE_KIND) {
    item['delete'] = {
      operationId: `delete_${n}`,
      parameters: [...params, nameParam],
      requestBody: { content: { 'application/json': { schema: schema.object({ namespace: schema.string(), name: schema.string(), fail_if_referred: schema.boolean() }) } } },
      responses: { '200': { description: 'Deleted', content: { 'application/json': { schema: { type: 'object' } } } }, ...errors },
    };
  }
  return { [base]: collection, [`${base}/{name}`]: item };
}

/** The OpenAPI 3 document of the configuration API, built from the schemas that validate requests. */
export function configOpenApi(version: string): Record<string, unknown> {
  const kinds = [...NAMESPACED_KINDS.values(), NAMESPACE_KIND];
  return {
    openapi: '3.0.3',
    info: { title: 'Edgeplane configuration API', version, description: 'Platform objects in the metadata / system_metadata / spec envelope. Authenticate with "Authorization: APIToken <token>" or a client certificate.' },
    components: {
      securitySchemes: { APIToken: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'APIToken <token>' } },
      schemas: Object.assign({ metadata, system_metadata: systemMetadata, error: errorSchema }, ...kinds.map(componentsFor)) as Record<string, unknown>,
    },
    security: [{ APIToken: [] }],
    paths: Object.assign({}, ...kinds.map(pathsFor)) as Record<string, unknown>,
  };
}
