import type { ManagedFieldsEntry } from '../object.js';
import type { FieldSet } from './field-set.js';
import { fromFieldsV1, toFieldsV1 } from './fields-v1.js';
import { compareGoStrings, goJsonString, isMap } from './go-format.js';
import type { ManagerSets } from './updater.js';
import { metav1Time } from '../meta-time.js';

/** When a manager last wrote; `fresh` marks a time set by the current request (it sorts after stored times of the same second). */
interface ManagerTime {
  readonly time: string;
  readonly fresh: boolean;
}

/** `metadata.managedFields` decoded: sets and times by manager identifier. */
export interface Managed {
  readonly fields: ManagerSets;
  readonly times: Map<string, ManagerTime>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/**
 * The identity of a managedFields entry (kube's `BuildManagerIdentifier`): the JSON of its
 * manager, operation and — for updaters only — apiVersion. Entries with the same identity
 * are one manager: an applier keeps one entry across versions, an updater one per version.
 */
export function managerIdentifier(entry: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'apiVersion'>): string {
  const parts: string[] = [];
  if (entry.manager !== undefined && entry.manager !== '') parts.push(`"manager":${goJsonString(entry.manager)}`);
  if (entry.operation !== undefined) parts.push(`"operation":${goJsonString(entry.operation)}`);
  if (entry.operation !== 'Apply' && entry.apiVersion !== undefined && entry.apiVersion !== '') parts.push(`"apiVersion":${goJsonString(entry.apiVersion)}`);
  return `{${parts.join(',')}}`;
}

/** The manager, operation and apiVersion an identifier was built from. */
export function parseManagerIdentifier(id: string): { manager: string; operation?: 'Apply' | 'Update'; apiVersion?: string } {
  const parsed = JSON.parse(id) as unknown;
  const get = (k: string): string | undefined => (isMap(parsed) && typeof parsed[k] === 'string' ? parsed[k] : undefined);
  const operation = get('operation');
  const apiVersion = get('apiVersion');
  return {
    manager: get('manager') ?? '',
    ...(operation === 'Apply' || operation === 'Update' ? { operation } : {}),
    ...(apiVersion === undefined ? {} : { apiVersion }),
  };
}

/** Decodes managedFields; throws (with the reason) when a `fieldsV1` cannot be read. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  const managed = emptyManaged();
  for (const entry of entries ?? []) {
    const id = managerIdentifier(entry);
    let set: FieldSet;
    try {
      set = fromFieldsV1(entry.fieldsV1);
    } catch (error) {
      throw new Error(`error decoding versioned set from ${JSON.stringify(entry)}: error decoding set: ${error instanceof Error ? error.message : String(error)}`);
    }
    managed.fields.set(id, { set, apiVersion: entry.apiVersion ?? '', applied: entry.operation === 'Apply' });
    if (entry.time !== undefined && entry.time !== null) managed.times.set(id, { time: entry.time, fresh: false });
    else managed.times.delete(id);
  }
  return managed;
}

/** Encodes managedFields in kube's order: Apply before Update, then by time (none first), then manager name. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const rows = [...managed.fields].map(([id, owned]) => {
    const who = parseManagerIdentifier(id);
    const time = managed.times.get(id);
    const operation = owned.applied ? 'Apply' : who.operation;
    const entry: ManagedFieldsEntry = {
      ...(who.manager === '' ? {} : { manager: who.manager }),
      ...(operation === undefined ? {} : { operation }),
      ...(owned.apiVersion === '' ? {} : { apiVersion: owned.apiVersion }),
      ...(time === undefined ? {} : { time: time.time }),
      fieldsType: 'FieldsV1',
      fieldsV1: toFieldsV1(owned.set),
    };
    return { entry, sortTime: time === undefined ? Number.NEGATIVE_INFINITY : Math.floor(Date.parse(time.time) / 1000) * 2 + (time.fresh ? 1 : 0) };
  });
  rows.sort(
    (a, b) =>
      compareGoStrings(a.entry.operation ?? '', b.entry.operation ?? '') ||
      (a.sortTime === b.sortTime ? 0 : a.sortTime < b.sortTime ? -1 : 1) ||
      compareGoStrings(a.entry.manager ?? '', b.entry.manager ?? '') ||
      compareGoStrings(a.entry.apiVersion ?? '', b.entry.apiVersion ?? ''),
  );
  return rows.map((r) => r.entry);
}

/** kube's reset request: managedFields given as an empty list, or as one empty entry. */
export function isResetManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (entries === undefined) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && isMap(entries[0]) && Object.keys(entries[0]).length === 0;
}

/** RFC 3339 in whole seconds, as `metav1.Time` serializes. */
export function formatTime(now: string): string {
  const ms = Date.parse(now);
  if (Number.isNaN(ms)) throw new TypeError(`not an RFC 3339 time: ${now}`);
  return metav1Time(ms);
}
