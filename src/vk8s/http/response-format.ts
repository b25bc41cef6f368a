import type { FastifyReply } from 'fastify';
import type { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { groupVersion, type ResourceType } from '../../apimachinery/resource-type.js';

type IncludeObject = 'None' | 'Metadata' | 'Object';

/** What a client asked a Table for: which meta.k8s.io version, and how much of each object. */
export interface TableRequest {
  readonly includeObject: IncludeObject;
  readonly version: 'v1' | 'v1beta1';
}

/** Server-side printing, injected so the HTTP layer does not depend on the printers. */
export interface TableFormat {
  /** The Table options when the Accept header asks for `as=Table`, else undefined. */
  requested(accept: string | undefined, includeObject: string | undefined): TableRequest | undefined;
  render(resource: ResourceType, objects: readonly KubeObject[], options: TableRequest & { now: Date; noHeaders?: boolean; listMeta?: { resourceVersion?: string; continue?: string } }): Record<string, unknown>;
}

/** A JSON answer (every answer of this API is JSON). */
export function sendJson(reply: FastifyReply, status: number, body: unknown): FastifyReply {
  return reply.code(status).header('content-type', 'application/json').send(JSON.stringify(body));
}

export function sendStatus(reply: FastifyReply, error: StatusError): FastifyReply {
  if (error.reason === 'TooManyRequests') void reply.header('retry-after', String(error.details?.retryAfterSeconds ?? 1));
  return sendJson(reply, error.code, error.toStatus());
}

/** `<Kind>List` as kube-apiserver answers a list. */
export function listBody(resource: ResourceType, items: readonly KubeObject[], meta: { resourceVersion: string; continue?: string }): Record<string, unknown> {
  return {
    kind: `${resource.kind}List`,
    apiVersion: groupVersion(resource.group, resource.version),
    metadata: { resourceVersion: meta.resourceVersion, ...(meta.continue === undefined ? {} : { continue: meta.continue }) },
    items,
  };
}

const ITEMS_END = Buffer.from(']}');
const COMMA = Buffer.from(',');

/**
 * {@link listBody} as JSON, from its items' JSON texts: the bytes `JSON.stringify(listBody(…))`
 * gives (`items` is the body's last member), without serializing the items again.
 */
export function listJson(resource: ResourceType, items: readonly Buffer[], meta: { resourceVersion: string; continue?: string }): Buffer {
  const empty = JSON.stringify(listBody(resource, [], meta));
  const parts: Buffer[] = [Buffer.from(empty.slice(0, -ITEMS_END.length))];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(ITEMS_END);
  return Buffer.concat(parts);
}

/** The Status a DELETE answers when the object is gone (kinds that do not return the object). */
export function deletedStatus(resource: ResourceType, object: KubeObject): Record<string, unknown> {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: { name: object.metadata.name, ...(resource.group === '' ? {} : { group: resource.group }), kind: resource.resource, uid: object.metadata.uid },
  };
}
