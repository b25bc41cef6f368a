import { objectKey } from '../../../config/keys.js';
import { SITE_NAME_LABEL, SITE_TYPE_LABEL, SITE_TYPE_LABEL_VALUE, siteNamespaceOf, type SiteType } from '../../../site-api/site-model.js';
import type { KeyValue, WatchEvent } from '../../../store/types.js';

/** A config object as the store holds it: key and envelope JSON (tests). */
export interface ConfigEntry {
  readonly key: string;
  readonly value: string;
}

let uids = 0;

function envelope(tenant: string, namespace: string, name: string, spec: Record<string, unknown>, extra: { labels?: Record<string, string>; disable?: boolean } = {}): string {
  return JSON.stringify({
    metadata: { name, namespace, labels: extra.labels ?? {}, annotations: {}, description: '', disable: extra.disable ?? false },
    system_metadata: {
      uid: `00000000-0000-4000-8000-${String(++uids).padStart(12, '0')}`,
      creation_timestamp: '2025-01-01T00:00:00.000000000Z',
      deletion_timestamp: null,
      modification_timestamp: null,
      initializers: null,
      finalizers: [],
      tenant,
      creator_class: 'test',
      creator_id: 'test',
      object_index: 0,
      owner_view: null,
      labels: {},
    },
    spec,
    status: [],
  });
}

/**
 * A site object as registration writes it: customer edge in the tenant's `system`
 * namespace, regional edge in `svc-io-system` of tenant svc-io; labels `svc.io/siteName`,
 * `svc.io/siteType` plus `labels`.
 */
export function siteEntry(name: string, type: SiteType, options: { tenant?: string; labels?: Record<string, string>; disable?: boolean; namespace?: string } = {}): ConfigEntry {
  const tenant = options.tenant ?? (type === 'REGIONAL_EDGE' ? 'svc-io' : 'acme');
  const namespace = options.namespace ?? siteNamespaceOf(type);
  const labels = { [SITE_NAME_LABEL]: name, [SITE_TYPE_LABEL]: SITE_TYPE_LABEL_VALUE[type], ...options.labels };
  return { key: objectKey(tenant, 'site', namespace, name), value: envelope(tenant, namespace, name, { site_type: type, nodes: [] }, { labels, ...(options.disable === undefined ? {} : { disable: options.disable }) }) };
}

export function virtualSiteEntry(tenant: string, namespace: string, name: string, type: SiteType, expressions: readonly string[], options: { disable?: boolean } = {}): ConfigEntry {
  return { key: objectKey(tenant, 'virtual_site', namespace, name), value: envelope(tenant, namespace, name, { site_type: type, site_selector: { expressions } }, options) };
}

export function virtualK8sEntry(
  tenant: string,
  namespace: string,
  name: string,
  options: { vsiteRefs?: ReadonlyArray<{ tenant?: string; namespace: string; name: string }>; defaultFlavorRef?: { tenant?: string; namespace: string; name: string } } = {},
): ConfigEntry {
  const spec: Record<string, unknown> = { vsite_refs: options.vsiteRefs ?? [], disabled: {} };
  if (options.defaultFlavorRef !== undefined) spec['default_flavor_ref'] = options.defaultFlavorRef;
  return { key: objectKey(tenant, 'virtual_k8s', namespace, name), value: envelope(tenant, namespace, name, spec) };
}

export function flavorEntry(tenant: string, namespace: string, name: string, vcpus: number, memory: number, ephemeralStorage?: number): ConfigEntry {
  return { key: objectKey(tenant, 'workload_flavor', namespace, name), value: envelope(tenant, namespace, name, { vcpus, memory, ...(ephemeralStorage === undefined ? {} : { ephemeral_storage: ephemeralStorage }) }) };
}

/** Entries as key-values at made-up revisions (for a CacheListener fed by hand). */
export function asKeyValues(entries: readonly ConfigEntry[], revision = 1): KeyValue[] {
  return entries.map((e, i) => ({ key: e.key, value: e.value, createRevision: revision + i, modRevision: revision + i }));
}

/** A watch event writing `entry` at `revision` (ADDED: listeners treat ADDED and MODIFIED alike). */
export function putEvent(entry: ConfigEntry, revision: number): WatchEvent {
  return { type: 'ADDED', key: entry.key, revision, kv: { key: entry.key, value: entry.value, createRevision: revision, modRevision: revision } };
}

/** A watch event deleting `entry`'s key at `revision`. */
export function deleteEvent(entry: ConfigEntry, revision: number): WatchEvent {
  return { type: 'DELETED', key: entry.key, revision, prev: { key: entry.key, value: entry.value, createRevision: 1, modRevision: 1 } };
}
