/**
 * What strategic merge patch needs to know about a field: its patch strategies
 * (`x-kubernetes-patch-strategy`: merge, retainKeys, replace), the merge key of a list of
 * objects (`x-kubernetes-patch-merge-key`), and the schema of its value (or of its items).
 */
export interface FieldPatchInfo {
  readonly strategies: readonly string[];
  readonly mergeKey?: string;
  /** The schema of the value, or of each item of a list, or of each value of a map. */
  readonly schema?: PatchSchema;
}

export interface PatchSchema {
  field(name: string): FieldPatchInfo;
}

/** A schema that knows nothing: every list is replaced (JSON merge patch semantics). */
export const NO_SCHEMA: PatchSchema = { field: () => ({ strategies: [] }) };

interface OpenApiProperty {
  $ref?: string;
  type?: string;
  items?: OpenApiProperty;
  additionalProperties?: OpenApiProperty | boolean;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
}

interface OpenApiDefinition {
  properties?: Record<string, OpenApiProperty>;
  additionalProperties?: OpenApiProperty | boolean;
}

/** Patch schemas read from OpenAPI v2 definitions (the Kubernetes 1.17 document), made lazily. */
export class OpenApiPatchSchemas {
  private readonly cache = new Map<string, PatchSchema>();

  constructor(private readonly definitions: Readonly<Record<string, OpenApiDefinition>>) {}

  /** The schema of a definition such as `io.k8s.api.apps.v1.Deployment`. */
  forDefinition(name: string): PatchSchema {
    let schema = this.cache.get(name);
    if (schema === undefined) {
      const definition = this.definitions[name];
      schema = definition === undefined ? NO_SCHEMA : this.build(definition);
      this.cache.set(name, schema);
    }
    return schema;
  }

  private valueSchema(property: OpenApiProperty | undefined): PatchSchema | undefined {
    if (property === undefined) return undefined;
    if (property.$ref !== undefined) return this.forDefinition(property.$ref.replace('#/definitions/', ''));
    if (property.type === 'array') return this.valueSchema(property.items);
    if (typeof property.additionalProperties === 'object') {
      const values = this.valueSchema(property.additionalProperties);
      return values === undefined ? undefined : { field: () => ({ strategies: [], schema: values }) };
    }
    return undefined;
  }

  private build(definition: OpenApiDefinition): PatchSchema {
    const properties = definition.properties ?? {};
    const fields = new Map<string, FieldPatchInfo>();
    return {
      field: (name) => {
        let info = fields.get(name);
        if (info === undefined) {
          const property = properties[name];
          const strategy = property?.['x-kubernetes-patch-strategy'];
          const mergeKey = property?.['x-kubernetes-patch-merge-key'];
          const schema = this.valueSchema(property);
          info = {
            strategies: strategy === undefined ? [] : strategy.split(','),
            ...(mergeKey === undefined ? {} : { mergeKey }),
            ...(schema === undefined ? {} : { schema }),
          };
          fields.set(name, info);
        }
        return info;
      },
    };
  }
}

/** A hand-written schema (tests, and kinds without OpenAPI definitions). */
export function literalSchema(fields: Record<string, { strategy?: string; mergeKey?: string; schema?: PatchSchema }>): PatchSchema {
  return {
    field: (name) => {
      const f = fields[name];
      if (f === undefined) return { strategies: [] };
      return {
        strategies: f.strategy === undefined ? [] : f.strategy.split(','),
        ...(f.mergeKey === undefined ? {} : { mergeKey: f.mergeKey }),
        ...(f.schema === undefined ? {} : { schema: f.schema }),
      };
    },
  };
}
