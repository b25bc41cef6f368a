import { MapNode, SliceNode, StructNode } from './composite-nodes.js';
import { goFieldName, goTypeName } from './go-names.js';
import type { ScalarKind } from './scalar-nodes.js';
import { scalarNode } from './scalar-nodes.js';
import type { TypeNode } from './type-node.js';

type Schema = Record<string, unknown>;

/** Definitions with their own JSON encoding in Go (an UnmarshalJSON method). */
const SPECIAL_DEFINITIONS: Readonly<Record<string, ScalarKind>> = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'intOrString',
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'microTime',
};

const REF_PREFIX = '#/definitions/';

/**
 * Compiles OpenAPI v2 definitions (the Kubernetes 1.17 document) into {@link TypeNode}s, once
 * per definition; `$ref` cycles are fine. Properties map to Go types by `type`/`format`:
 * `string` (`byte` → []byte), `integer` (`int32`/`int64`), `number`, `boolean`, `array`,
 * `object` with `additionalProperties` (a map) or without (any JSON, like RawExtension or
 * FieldsV1), `$ref`.
 */
export class SchemaCompiler {
  private readonly compiled = new Map<string, TypeNode>();
  private readonly scalars = new Map<ScalarKind, TypeNode>();

  constructor(private readonly definitions: Readonly<Record<string, Schema>>) {}

  /** The node of a definition by name (`io.k8s.api.apps.v1.Deployment`); throws for an unknown one. */
  definition(name: string): TypeNode {
    const cached = this.compiled.get(name);
    if (cached !== undefined) return cached;
    const schema = this.definitions[name];
    if (schema === undefined) throw new Error(`no OpenAPI definition ${name}`);
    const special = SPECIAL_DEFINITIONS[name];
    if (special !== undefined || !isRecord(schema.properties)) {
      const node = special !== undefined ? this.scalar(special) : this.property(schema, name);
      this.compiled.set(name, node);
      return node;
    }
    const node = new StructNode(goTypeName(name));
    this.compiled.set(name, node);
    for (const [property, propertySchema] of Object.entries(schema.properties)) {
      if (!isRecord(propertySchema)) continue;
      const ref = typeof propertySchema.$ref === 'string' ? propertySchema.$ref : undefined;
      node.fields.set(property, { goName: goFieldName(name, property, ref), node: this.property(propertySchema, name) });
    }
    return node;
  }

  private property(schema: Schema, owner: string): TypeNode {
    if (typeof schema.$ref === 'string') {
      if (!schema.$ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${schema.$ref} in ${owner}`);
      return this.definition(schema.$ref.slice(REF_PREFIX.length));
    }
    switch (schema.type) {
      case 'string':
        return this.scalar(schema.format === 'byte' ? 'bytes' : 'string');
      case 'integer':
        return this.scalar(schema.format === 'int32' ? 'int32' : 'int64');
      case 'number':
        return this.scalar('float64');
      case 'boolean':
        return this.scalar('bool');
      case 'array':
        return new SliceNode(isRecord(schema.items) ? this.property(schema.items, owner) : this.scalar('any'));
      case 'object':
        return isRecord(schema.additionalProperties) ? new MapNode(this.property(schema.additionalProperties, owner)) : this.scalar('any');
      default:
        return this.scalar('any');
    }
  }

  private scalar(kind: ScalarKind): TypeNode {
    let node = this.scalars.get(kind);
    if (node === undefined) {
      node = scalarNode(kind);
      this.scalars.set(kind, node);
    }
    return node;
  }
}

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
