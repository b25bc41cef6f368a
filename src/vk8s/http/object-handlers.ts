import { validatePatchOptions } from '../../apimachinery/apply/patch-options.js';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { patchSchemas } from './patch-schemas.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';
import { definitionOf, groupVersion } from '../../apimachinery/resource-type.js';
import { parsePatchBody, patchJson, patchTypeOf } from './patch-object.js';
import { parseDeleteOptions, parseListQuery, single } from './query.js';
import { asKind, decodeOptionalBody, decodeResourceBody } from './request-body.js';
import { admit, nameOf, rawBody, scopeOf, storeOf, type ResourceRequest } from './resource-request.js';
import { deletedStatus, listBody, listJson, sendJson } from './response-format.js';
import { metav1Time } from '../../apimachinery/meta-time.js';


/** Answers with the object, or with a one-row Table when the client asked for one. */
export function sendObject(r: ResourceRequest, status: number, object: KubeObject): void {
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  if (table !== undefined && r.deps.tables !== undefined) {
    void sendJson(r.reply, status, r.deps.tables.render(r.resource, [object], { now: r.deps.clock.now(), ...table, listMeta: { resourceVersion: object.metadata.resourceVersion } }));
    return;
  }
  void sendJson(r.reply, status, object);
}

/** Decodes a POST/PUT body as this resource's kind, defaulted, in the request's namespace. */
function decodeWriteBody(r: ResourceRequest): KubeObject {
  const object = decodeResourceBody(rawBody(r), r.request.headers['content-type'], r.resource, single(r.query, 'fieldValidation') === 'Strict');
  checkBodyNamespace(r, object);
  r.strategy.defaults(object);
  return object;
}

function checkBodyNamespace(r: ResourceRequest, object: KubeObject): void {
  const namespace = object.metadata.namespace;
  if (r.resource.namespaced && namespace !== undefined && namespace !== '' && namespace !== r.context.cluster.namespace) {
    throw StatusError.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

export async function handleGet(r: ResourceRequest): Promise<void> {
  const store = storeOf(r);
  if (r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject')) !== undefined) {
    sendObject(r, 200, await store.get(r.context.cluster, nameOf(r)));
    return;
  }
  // The object's JSON as the cache keeps it: sent without a parse and a serialization.
  void r.reply.code(200).header('content-type', 'application/json').send(await store.getJson(r.context.cluster, nameOf(r)));
}

export async function handleList(r: ResourceRequest): Promise<void> {
  const store = storeOf(r);
  const result = await store.list(r.context.cluster, parseListQuery(r.query, r.strategy));
  const table = r.deps.tables?.requested(r.request.headers.accept, single(r.query, 'includeObject'));
  if (table !== undefined && r.deps.tables !== undefined) {
    void sendJson(r.reply, 200, r.deps.tables.render(r.resource, result.items, { now: r.deps.clock.now(), ...table, listMeta: { resourceVersion: result.resourceVersion, continue: result.continue } }));
    return;
  }
  if (result.stored !== undefined) {
    // Served by the watch cache: the items' JSON as the cache keeps it.
    const json = listJson(r.resource, result.stored.map((kv) => store.codec.json(kv)), result);
    void r.reply.code(200).header('content-type', 'application/json').send(json);
    return;
  }
  void sendJson(r.reply, 200, listBody(r.resource, result.items, result));
}

export async function handleCreate(r: ResourceRequest): Promise<void> {
  const object = decodeWriteBody(r);
  if (r.info.name !== undefined) throw StatusError.methodNotAllowed('create', { resource: r.resource.resource, group: r.resource.group });
  admit(r, object);
  sendObject(r, 201, await storeOf(r).create(scopeOf(r), object));
}

export async function handleUpdate(r: ResourceRequest, subresource?: 'status'): Promise<void> {
  const object = decodeWriteBody(r);
  const name = nameOf(r);
  if (object.metadata.name !== undefined && object.metadata.name !== name) {
    throw StatusError.badRequest(`the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`);
  }
  object.metadata.name = name;
  // Without a resourceVersion a PUT is unconditional: a concurrent write is retried over.
  const unconditional = object.metadata.resourceVersion === undefined || object.metadata.resourceVersion === '';
  const compute = (current: KubeObject): KubeObject => {
    if (subresource === undefined) admit(r, object, current);
    return object;
  };
  sendObject(r, 200, await storeOf(r).update(scopeOf(r), name, compute, { subresource, retryOnConflict: unconditional }));
}

export async function handlePatch(r: ResourceRequest, subresource?: 'status'): Promise<void> {
  const type = patchTypeOf(r.request.headers['content-type']);
  const patch = parsePatchBody(rawBody(r), type);
  const store = storeOf(r);
  const scope = scopeOf(r);
  const name = nameOf(r);
  if (type === 'apply') {
    const { object, created } = await applyPatch(r, patch, name);
    sendObject(r, created ? 201 : 200, object);
    return;
  }
  const pinned = typeof patch === 'object' && patch !== null && !Array.isArray(patch) && typeof (patch as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion === 'string';
  const updated = await store.update(
    scope,
    name,
    (current) => {
      const patched = asKind(patchJson(current, type, patch, patchSchemas().forDefinition(definitionOf(r.resource))), r.resource);
      checkBodyNamespace(r, patched);
      if (patched.metadata.name !== name) throw StatusError.badRequest(`the name of the object (${String(patched.metadata.name)}) does not match the name on the URL (${name})`);
      r.strategy.defaults(patched);
      if (subresource === undefined) admit(r, patched, current);
      return patched;
    },
    { subresource, retryOnConflict: type === 'json' ? !Array.isArray(patch) || !JSON.stringify(patch).includes('/metadata/resourceVersion') : !pinned },
  );
  sendObject(r, 200, updated);
}

/** A server-side apply: creates the object when it does not exist (201, as kube's patch handler answers then). */
async function applyPatch(r: ResourceRequest, patch: unknown, name: string): Promise<{ object: KubeObject; created: boolean }> {
  const apply = r.deps.apply;
  if (apply === undefined) throw StatusError.unsupportedMediaType('application/apply-patch+yaml');
  const optionsError = validatePatchOptions({ apply: true, fieldManager: single(r.query, 'fieldManager'), force: single(r.query, 'force') });
  if (optionsError !== undefined) throw optionsError;
  const scope = scopeOf(r);
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) throw StatusError.badRequest(`error decoding YAML: the apply configuration must be an object`);
  // Without metadata the name is the URL's; metadata that is not an object is the client's mistake, never a 500.
  const metadata = (patch as { metadata?: unknown }).metadata ?? {};
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) throw StatusError.badRequest('error decoding YAML: metadata of the apply configuration must be an object');
  const applied = { ...(patch as KubeObject), metadata: metadata as KubeObject['metadata'] };
  checkBodyNamespace(r, applied);
  if (applied.metadata.name !== undefined && applied.metadata.name !== name) throw StatusError.badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
  const force = single(r.query, 'force') === 'true';
  const store = storeOf(r);
  const now = metav1Time(r.deps.clock.now());
  for (let attempt = 0; ; attempt++) {
    let live: KubeObject | undefined;
    try {
      live = await store.get(r.context.cluster, name);
    } catch (error) {
      if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
    }
    const result = asKind(apply({ live: live === undefined ? undefined : cloneObject(live), applied: { ...applied, metadata: { ...applied.metadata, name } }, manager: scope.fieldManager, force, now, resource: r.resource }), r.resource);
    r.strategy.defaults(result);
    admit(r, result, live);
    try {
      if (live === undefined) return { object: await store.create(scope, result, { applied: true }), created: true };
      const updated = await store.update(scope, name, () => ({ ...result, metadata: { ...result.metadata, resourceVersion: live.metadata.resourceVersion } }), { applied: true });
      return { object: updated, created: false };
    } catch (error) {
      const raced = error instanceof StatusError && (error.reason === 'Conflict' || error.reason === 'AlreadyExists' || error.reason === 'NotFound');
      if (!raced || attempt >= 5) throw error;
    }
  }
}

export async function handleDelete(r: ResourceRequest): Promise<void> {
  const options = parseDeleteOptions(r.query, decodeOptionalBody(rawBody(r), r.request.headers['content-type']));
  const result = await storeOf(r).delete(scopeOf(r), nameOf(r), options);
  if (result.removed && r.strategy.returnDeletedObject !== true) {
    void sendJson(r.reply, 200, deletedStatus(r.resource, result.object));
    return;
  }
  const accepted = !result.removed && options.orphanDependents === false;
  sendObject(r, accepted ? 202 : 200, result.object);
}

/** DELETE on a collection: every selected object, each with the request's options (kube's DeleteCollection). */
export async function handleDeleteCollection(r: ResourceRequest): Promise<void> {
  const store = storeOf(r);
  const scope = scopeOf(r);
  const options = parseDeleteOptions(r.query, decodeOptionalBody(rawBody(r), r.request.headers['content-type']));
  const { items, resourceVersion } = await store.list(r.context.cluster, { ...parseListQuery(r.query, r.strategy), limit: undefined, continue: undefined });
  const deleted: KubeObject[] = [];
  for (const item of items) {
    try {
      deleted.push((await store.delete(scope, item.metadata.name ?? '', options)).object);
    } catch (error) {
      if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
    }
  }
  void sendJson(r.reply, 200, { ...listBody(r.resource, deleted, { resourceVersion }), apiVersion: groupVersion(r.resource.group, r.resource.version) });
}
