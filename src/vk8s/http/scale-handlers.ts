import { StatusError, fieldError } from '../../apimachinery/errors/status-error.js';
import { OpenApiPatchSchemas } from '../../apimachinery/patch/patch-schema.js';
import { loadKubernetesOpenApi } from '../openapi/kubernetes-document.js';
import type { ScaleAccess } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { parsePatchBody, patchJson, patchTypeOf } from './patch-object.js';
import { decodeBody } from '../decode/index.js';
import { nameOf, rawBody, scopeOf, storeOf, type ResourceRequest } from './resource-request.js';
import { sendJson } from './response-format.js';

const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

function scaleAccess(r: ResourceRequest): ScaleAccess {
  const access = r.strategy.scale;
  if (access === undefined) throw StatusError.noSuchPath();
  return access;
}

/** The autoscaling/v1 Scale view of an object with replicas. */
function scaleOf(object: KubeObject, access: ScaleAccess): Record<string, unknown> {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = object.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
    spec: { replicas: access.specReplicas(object) },
    status: { replicas: access.statusReplicas(object), selector: access.selector(object) },
  };
}

export async function handleGetScale(r: ResourceRequest): Promise<void> {
  const access = scaleAccess(r);
  void sendJson(r.reply, 200, scaleOf(await storeOf(r).get(r.context.cluster, nameOf(r)), access));
}

/** PUT `/scale` (a Scale body) and PATCH `/scale` (a patch of the Scale): both set spec.replicas. */
export async function handleWriteScale(r: ResourceRequest, mode: 'update' | 'patch'): Promise<void> {
  const access = scaleAccess(r);
  const name = nameOf(r);
  const patchType = mode === 'patch' ? patchTypeOf(r.request.headers['content-type']) : undefined;
  if (patchType === 'apply') throw StatusError.unsupportedMediaType('application/apply-patch+yaml');
  const body = patchType === undefined ? decodeBody(rawBody(r) ?? Buffer.alloc(0), r.request.headers['content-type'], 'Scale') : parsePatchBody(rawBody(r), patchType);
  const updated = await storeOf(r).update(
    scopeOf(r),
    name,
    (current) => {
      const before = scaleOf(current, access);
      const scale = patchType === undefined ? body : patchJson(before, patchType, body, scaleSchema());
      const replicas = checkScale(scale, name);
      const pinned = (scale as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
      if (typeof pinned === 'string' && pinned !== '' && pinned !== current.metadata.resourceVersion) throw StatusError.modified({ resource: r.resource.resource, group: r.resource.group }, name);
      access.setSpecReplicas(current, replicas);
      return current;
    },
    { retryOnConflict: true, subresource: 'scale' },
  );
  void sendJson(r.reply, 200, scaleOf(updated, access));
}

function checkScale(value: unknown, name: string): number {
  if (typeof value !== 'object' || value === null) throw StatusError.badRequest(`Object 'Kind' is missing in '${JSON.stringify(value)}'`);
  const scale = value as { kind?: unknown; apiVersion?: unknown; spec?: { replicas?: unknown } };
  if (scale.kind !== undefined && scale.kind !== SCALE.kind) throw StatusError.badRequest(`the kind in the data (${JSON.stringify(scale.kind)}) does not match the expected kind (Scale)`);
  const replicas = scale.spec?.replicas ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) throw StatusError.badRequest(`Scale in version "v1" cannot be handled as a Scale: v1.Scale.Spec: v1.ScaleSpec.Replicas: readUint32: unexpected value ${JSON.stringify(replicas)}`);
  if (replicas < 0) throw StatusError.invalid({ kind: 'Scale', group: 'autoscaling' }, name, [fieldError.invalid('spec.replicas', replicas, 'must be greater than or equal to 0')]);
  return replicas;
}

let schemas: OpenApiPatchSchemas | undefined;
function scaleSchema(): ReturnType<OpenApiPatchSchemas['forDefinition']> {
  schemas ??= new OpenApiPatchSchemas(loadKubernetesOpenApi().definitions);
  return schemas.forDefinition('io.k8s.api.autoscaling.v1.Scale');
}
