import { StatusError } from '../errors/status-error.js';
import type { KubeObject, ManagedFieldsEntry } from '../object.js';
import { ApplyConflictError, ApplyFailedError, conflictsFromManagers, invalidApplyConfiguration, untypedLiveObject } from './apply-errors.js';
import type { ApplyTypes } from './apply-types.js';
import { FieldSet } from './field-set.js';
import { isMap } from './go-format.js';
import { decodeManagedFields, emptyManaged, encodeManagedFields, formatTime, isResetManagedFields, type Managed, managerIdentifier } from './managed-fields.js';
import { fieldElement, pathString } from './path-element.js';
import { type TypeContext, toFieldSet } from './to-field-set.js';
import type { TypeNode } from './type-schema.js';
import { ManagerConflicts, type ManagerSets, TypedValueError, Updater } from './updater.js';
import { zeroObject } from './zero-objects.js';

/** Where an object's type comes from: the OpenAPI types and the object's definition name. */
interface ObjectType {
  readonly types: ApplyTypes;
  /** e.g. `io.k8s.api.apps.v1.Deployment` (see `ApplyTypes.definitionFor`). */
  readonly definition: string;
}

export interface ApplyObjectOptions extends ObjectType {
  /** The stored object, or `undefined` when the apply creates it. */
  readonly live: KubeObject | undefined;
  /** The applied configuration (the request body, parsed). */
  readonly applied: Record<string, unknown>;
  /** The `fieldManager` query parameter (required for apply; see `validatePatchOptions`). */
  readonly manager: string;
  readonly force: boolean;
  /** The request time (RFC 3339); recorded in whole seconds. */
  readonly now: string;
  /** The version the request addresses, e.g. `apps/v1`. */
  readonly apiVersion: string;
}

/** Paths kube never tracks: type and identity fields and server-set metadata. */
const STRIPPED = FieldSet.of(
  [['apiVersion'], ['kind'], ['metadata'], ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => ['metadata', f])].map((p) =>
    p.map(fieldElement),
  ),
);

const stripped = (managers: ManagerSets, id: string): void => {
  const owned = managers.get(id);
  if (owned === undefined) return;
  const set = owned.set.difference(STRIPPED);
  if (set.isEmpty()) managers.delete(id);
  else managers.set(id, { ...owned, set });
};

const lenient = (o: ObjectType): TypeContext => ({ resolver: o.types.resolve, strict: false });
const rootType = (o: ObjectType): TypeNode => ({ kind: 'ref', name: o.definition });

/**
 * Server-side apply as kube-apiserver 1.17's field manager does it. Returns the merged object
 * (before defaulting, admission and the strategy, which the caller runs next) with
 * `metadata.managedFields` updated. When the live object has no managedFields (created or
 * last written before anyone applied), its current fields are first recorded under the
 * `before-first-apply` updater. Throws {@link ApplyConflictError} when other managers own
 * changed fields and `force` is false; `StatusError` 400 for a configuration that carries
 * managedFields or another apiVersion; 422 Invalid for a configuration the schema rejects (a
 * value of the wrong type, an associative list item missing a key field); 409 Conflict when
 * the stored object does not type; {@link ApplyFailedError} (500) when its managedFields do
 * not decode.
 */
export function applyObject(o: ApplyObjectOptions): KubeObject {
  const kind = typeof o.applied.kind === 'string' ? o.applied.kind : '';
  const live = o.live ?? zeroObject(o.definition, o.apiVersion, kind);
  const missingManagedFields = (live.metadata.managedFields ?? []).length === 0;
  const managed = decodeOrFail(live.metadata.managedFields);
  const appliedMeta = isMap(o.applied.metadata) ? o.applied.metadata : {};
  if (appliedMeta.managedFields !== undefined && appliedMeta.managedFields !== null) throw StatusError.badRequest('metadata.managedFields must be nil');
  const appliedVersion = typeof o.applied.apiVersion === 'string' ? o.applied.apiVersion : '';
  if (appliedVersion !== o.apiVersion) {
    throw StatusError.badRequest(`Incorrect version specified in apply patch. Specified patch version: ${appliedVersion}, expected: ${o.apiVersion}`);
  }
  const liveValue = withoutManagedFields(live);
  const typed = toFieldSet(o.applied, rootType(o), { resolver: o.types.resolve, strict: true });
  if (typed.errors.length > 0) throw invalidApplyConfiguration(typed.errors, { apiVersion: o.apiVersion, kind, name: typeof appliedMeta.name === 'string' ? appliedMeta.name : '' });
  const liveTyped = toFieldSet(liveValue, rootType(o), lenient(o));
  if (liveTyped.errors.length > 0) throw untypedLiveObject(liveTyped.errors, { apiVersion: o.apiVersion, kind, name: typeof appliedMeta.name === 'string' ? appliedMeta.name : (live.metadata.name ?? '') });

  const applier = managerIdentifier({ manager: o.manager === '' ? 'unknown' : o.manager, operation: 'Apply' });
  if (missingManagedFields) {
    const id = managerIdentifier({ manager: 'before-first-apply', operation: 'Update', apiVersion: o.apiVersion });
    managed.fields.set(id, { set: liveTyped.set, apiVersion: o.apiVersion, applied: false });
    stripped(managed.fields, id);
  }
  let result: { object: unknown; managers: ManagerSets };
  try {
    result = new Updater(rootType(o), lenient(o)).apply(liveValue, o.applied, o.apiVersion, managed.fields, applier, o.force);
  } catch (error) {
    if (error instanceof ManagerConflicts) {
      throw new ApplyConflictError(conflictsFromManagers(new Map([...error.conflicts].map(([id, set]) => [id, set.paths().map(pathString)]))));
    }
    if (error instanceof TypedValueError) throw new ApplyFailedError(`failed to merge config: ${error.message}`);
    throw error;
  }
  stripped(result.managers, applier);
  const times = new Map(managed.times).set(applier, { time: formatTime(o.now), fresh: true });
  const object = structuredClone(dropPrunedNulls(result.object, liveValue, o.applied)) as KubeObject;
  return withManagedFields(object, encodeManagedFields({ fields: result.managers, times }));
}

function decodeOrFail(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  try {
    return decodeManagedFields(entries);
  } catch (error) {
    throw new ApplyFailedError(`failed to decode managed fields: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export interface UpdateManagedFieldsOptions extends ObjectType {
  /** The stored object; `undefined` for a create. */
  readonly old: KubeObject | undefined;
  /** The object about to be written, as the request made it (before the strategy resets status). */
  readonly updated: KubeObject;
  /** The fieldManager, or what `managerFromRequest` derives from the User-Agent. */
  readonly manager: string;
  readonly now: string;
  readonly apiVersion: string;
  /** `scale` writes leave managedFields alone in 1.17; `status` writes are ordinary updates. */
  readonly subresource?: string;
}

/**
 * managedFields after a create, update or non-apply patch, as kube-apiserver 1.17 records them:
 * objects nobody has applied to are not tracked (the result is `undefined`, unless the request
 * supplies managedFields); otherwise the fields the request changed move to one `Update`
 * entry per manager and apiVersion (merged with its earlier updates, time refreshed), and
 * fields it removed leave every entry. Managed fields given in the request replace the
 * stored ones; `[]` or `[{}]` clears them. `undefined` means: write no managedFields.
 */
export function updateManagedFields(o: UpdateManagedFieldsOptions): ManagedFieldsEntry[] | undefined {
  if (o.subresource === 'scale') return o.old?.metadata.managedFields;
  const given = o.updated.metadata.managedFields;
  let managed = isResetManagedFields(given) ? emptyManaged() : tryDecode(given);
  if (managed === undefined || (managed.fields.size === 0 && !isResetManagedFields(given))) managed = tryDecode(o.old?.metadata.managedFields) ?? emptyManaged();
  if (managed.fields.size === 0) return undefined;
  const kind = o.updated.kind;
  const live = withoutManagedFields(o.old ?? zeroObject(o.definition, o.apiVersion, kind));
  const next = withoutManagedFields(o.updated);
  let managers: ManagerSets;
  try {
    managers = new Updater(rootType(o), lenient(o)).update(live, next, o.apiVersion, managed.fields, o.manager);
  } catch (error) {
    if (error instanceof TypedValueError) return given;
    throw error;
  }
  stripped(managers, o.manager);
  const mine = managers.get(o.manager);
  const times = new Map(managed.times);
  if (mine !== undefined) {
    managers.delete(o.manager);
    const id = managerIdentifier({ manager: o.manager === '' ? 'unknown' : o.manager, operation: 'Update', apiVersion: o.apiVersion });
    times.set(id, { time: formatTime(o.now), fresh: true });
    const previous = managers.get(id);
    managers.set(id, previous === undefined ? mine : { ...mine, set: mine.set.union(previous.set) });
  }
  const entries = encodeManagedFields({ fields: managers, times });
  return entries.length > 0 ? entries : undefined;
}

function tryDecode(entries: readonly ManagedFieldsEntry[] | undefined): Managed | undefined {
  try {
    return decodeManagedFields(entries);
  } catch {
    return undefined;
  }
}

/** The object with `metadata.managedFields` set to `entries`, or without it when there are none. */
export function withManagedFields(object: KubeObject, entries: readonly ManagedFieldsEntry[] | undefined): KubeObject {
  const metadata = { ...object.metadata };
  if (entries === undefined || entries.length === 0) delete metadata.managedFields;
  else metadata.managedFields = [...entries];
  return { ...object, metadata };
}

function withoutManagedFields(object: KubeObject): KubeObject {
  return withManagedFields(object, undefined);
}

/**
 * Upstream leaves a list or map emptied by pruning as `null`, which kube's typed conversion
 * then drops; drop those keys (nulls the live object or the configuration had stay).
 */
function dropPrunedNulls(value: unknown, live: unknown, applied: unknown): unknown {
  if (!isMap(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const l = isMap(live) ? live[k] : undefined;
    const a = isMap(applied) ? applied[k] : undefined;
    if (v === null && l !== null && a !== null) continue;
    out[k] = Array.isArray(v) ? v.map((item) => dropPrunedNulls(item, undefined, undefined)) : dropPrunedNulls(v, l, a);
  }
  return out;
}
