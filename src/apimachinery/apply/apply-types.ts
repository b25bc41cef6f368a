import { isMap } from './go-format.js';
import type { ScalarKind, TypeNode, TypeResolver } from './type-schema.js';

interface OpenApiSchema {
  readonly $ref?: string;
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, OpenApiSchema>>;
  readonly additionalProperties?: OpenApiSchema | boolean;
  readonly items?: OpenApiSchema;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-patch-strategy'?: string;
  readonly 'x-kubernetes-patch-merge-key'?: string;
  readonly 'x-kubernetes-group-version-kind'?: ReadonlyArray<{ group: string; version: string; kind: string }>;
}

const REF_PREFIX = '#/definitions/';

/**
 * Server-side apply types read from OpenAPI v2 definitions, the way kube-apiserver 1.17
 * (kube-openapi `schemaconv`) derives them for built-in types:
 * - an array is a list: `x-kubernetes-list-type` decides when present (`map` keyed by
 *   `x-kubernetes-list-map-keys`, `set`, `atomic`); otherwise a `merge` patch strategy makes
 *   it associative, keyed by `x-kubernetes-patch-merge-key` (a set of scalars without one);
 *   every other list is atomic;
 * - an object with properties is a struct; one without is a granular map of its
 *   `additionalProperties` (arbitrary values when absent);
 * - a definition with neither type nor properties is untyped (atomic).
 * Each definition is converted once, on first use, and cached in this instance.
 */
export class ApplyTypes {
  private readonly cache = new Map<string, TypeNode>();
  private kinds: Map<string, string> | undefined;

  constructor(private readonly definitions: Readonly<Record<string, unknown>>) {}

  /** Resolves a definition name (unknown names are `deduced`). */
  readonly resolve: TypeResolver = (name) => {
    let node = this.cache.get(name);
    if (node === undefined) {
      const definition = this.definitions[name];
      node = isMap(definition) ? this.convert(definition) : { kind: 'deduced' };
      this.cache.set(name, node);
    }
    return node;
  };

  /** The definition named by `x-kubernetes-group-version-kind` for an object's apiVersion and kind. */
  definitionFor(apiVersion: string, kind: string): string | undefined {
    if (this.kinds === undefined) {
      this.kinds = new Map();
      for (const [name, definition] of Object.entries(this.definitions)) {
        const gvks = isMap(definition) ? (definition as OpenApiSchema)['x-kubernetes-group-version-kind'] : undefined;
        for (const gvk of gvks ?? []) {
          const key = `${gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`}/${gvk.kind}`;
          if (!this.kinds.has(key)) this.kinds.set(key, name);
        }
      }
    }
    return this.kinds.get(`${apiVersion}/${kind}`);
  }

  private convert(s: OpenApiSchema): TypeNode {
    if (s.$ref !== undefined) return { kind: 'ref', name: s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref };
    switch (s.type) {
      case undefined:
        return s.properties === undefined ? { kind: 'untyped' } : this.struct(s.properties);
      case 'object':
        if (s.properties !== undefined) return this.struct(s.properties);
        return { kind: 'map', values: typeof s.additionalProperties === 'object' ? this.convert(s.additionalProperties) : { kind: 'untyped' }, atomic: false };
      case 'array':
        return this.list(s);
      default:
        return { kind: 'scalar', scalar: scalarKind(s) };
    }
  }

  private struct(properties: Readonly<Record<string, OpenApiSchema>>): TypeNode {
    return { kind: 'struct', fields: new Map(Object.entries(properties).map(([name, p]) => [name, this.convert(p)])) };
  }

  private list(s: OpenApiSchema): TypeNode {
    const items: TypeNode = s.items === undefined ? { kind: 'untyped' } : this.convert(s.items);
    const listType = s['x-kubernetes-list-type'];
    if (listType !== undefined) {
      if (listType === 'map') return { kind: 'list', items, associative: true, keys: s['x-kubernetes-list-map-keys'] ?? [] };
      return { kind: 'list', items, associative: listType === 'set', keys: [] };
    }
    const merging = (s['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge');
    const key = s['x-kubernetes-patch-merge-key'];
    return { kind: 'list', items, associative: merging, keys: merging && key !== undefined ? [key] : [] };
  }
}

function scalarKind(s: OpenApiSchema): ScalarKind {
  switch (s.type) {
    case 'integer':
    case 'number':
      return 'numeric';
    case 'boolean':
      return 'boolean';
    case 'string':
      return s.format === undefined || s.format === '' || s.format === 'byte' || s.format === 'date-time' ? 'string' : 'untyped';
    default:
      return 'untyped';
  }
}
