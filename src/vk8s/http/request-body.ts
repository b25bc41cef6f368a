import { decodeBody, decodeObject } from '../decode/index.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { definitionOf, type ResourceType } from '../../apimachinery/resource-type.js';

/** A POST/PUT body decoded as the resource's kind (JSON or YAML; typed against the 1.17 OpenAPI). */
export function decodeResourceBody(raw: Buffer | undefined, contentType: string | undefined, resource: ResourceType, strict: boolean): KubeObject {
  const body = raw ?? Buffer.alloc(0);
  const value = decodeBody(body, contentType, resource.kind);
  return asKind(value, resource, strict, body);
}

/** A value (a patched object, an applied configuration) checked and cleaned as the resource's kind. */
export function asKind(value: unknown, resource: ResourceType, strict = false, body?: Uint8Array): KubeObject {
  return decodeObject(value, { group: resource.group, version: resource.version, kind: resource.kind, definition: definitionOf(resource) }, { strict, ...(body === undefined ? {} : { body }) });
}

/** A body that is optional and not a kind of this API (DeleteOptions): JSON or YAML, or undefined when empty. */
export function decodeOptionalBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (raw === undefined || raw.length === 0) return undefined;
  return decodeBody(raw, contentType);
}
