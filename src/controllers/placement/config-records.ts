import { parseSelector, SelectorParseError, type Selector } from '../../apimachinery/index.js';
import { isPlatformNamespace, PLATFORM_TENANT } from '../../auth/principal.js';
import type { ObjectRef, StoredObject } from '../../config/envelope.js';
import { normalizeRef } from '../../config/kinds/kind.js';
import type { SiteType } from '../../site-api/site-model.js';

/** Where a config object lives: its tenant, namespace and name. */
export interface ConfigName {
  readonly tenant: string;
  readonly namespace: string;
  readonly name: string;
}

export interface SiteRecord extends ConfigName {
  readonly type: SiteType;
  readonly labels: Readonly<Record<string, string>>;
  readonly disabled: boolean;
}

export interface VirtualSiteRecord extends ConfigName {
  readonly siteType: SiteType;
  /** One per expression; a site matches when any selects it. */
  readonly selectors: readonly Selector[];
  /** Expressions that do not parse (the config API refuses them; kept for stores written otherwise). */
  readonly problems: readonly string[];
  readonly disabled: boolean;
}

export interface VirtualK8sRecord extends ConfigName {
  /** Resolved refs (tenant filled in; platform namespaces belong to the platform tenant). */
  readonly vsiteRefs: readonly ObjectRef[];
  readonly defaultFlavorRef?: ObjectRef;
}

export interface FlavorRecord extends ConfigName {
  readonly vcpus: number;
  readonly memoryMiB: number;
  readonly ephemeralStorageMiB?: number;
}

/** The config kinds placement reads. */
const PLACEMENT_KINDS = ['site', 'virtual_site', 'virtual_k8s', 'workload_flavor'] as const;
export type PlacementKind = (typeof PLACEMENT_KINDS)[number];

export type ConfigRecord =
  | { readonly kind: 'site'; readonly record: SiteRecord }
  | { readonly kind: 'virtual_site'; readonly record: VirtualSiteRecord }
  | { readonly kind: 'virtual_k8s'; readonly record: VirtualK8sRecord }
  | { readonly kind: 'workload_flavor'; readonly record: FlavorRecord };

/** `tenant/namespace/name`: a config object's identity as one string. */
export function configId(name: ConfigName): string {
  return `${name.tenant}/${name.namespace}/${name.name}`;
}

/** The kind and name of a config store key (`/config/<tenant>/<kind>/<namespace>/<name>`) placement reads; undefined otherwise. */
export function parseConfigKey(key: string): { readonly kind: PlacementKind; readonly name: ConfigName } | undefined {
  const parts = key.split('/');
  if (parts.length !== 6 || parts[0] !== '' || parts[1] !== 'config') return undefined;
  const [, , tenant, kind, namespace, name] = parts as [string, string, string, string, string, string];
  if (!(PLACEMENT_KINDS as readonly string[]).includes(kind)) return undefined;
  return { kind: kind as PlacementKind, name: { tenant, namespace, name } };
}

/** A ref as placement uses it: resolved like the config API does (platform namespaces → platform tenant). */
function resolveRef(raw: unknown, owner: ConfigName): ObjectRef | undefined {
  const ref = normalizeRef(raw, owner.tenant, owner.namespace);
  if (ref === undefined) return undefined;
  return isPlatformNamespace(ref.namespace) ? { ...ref, tenant: PLATFORM_TENANT } : ref;
}

const siteType = (value: unknown): SiteType | undefined => (value === 'REGIONAL_EDGE' || value === 'CUSTOMER_EDGE' ? value : undefined);
const stringMap = (value: unknown): Record<string, string> =>
  typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};

/**
 * The record of a stored config object of a placement kind (the envelope JSON), or
 * undefined when the value is not one (unparsable JSON, a required field missing).
 */
export function parseConfigRecord(key: string, value: string): ConfigRecord | undefined {
  const where = parseConfigKey(key);
  if (where === undefined) return undefined;
  let object: StoredObject;
  try {
    object = JSON.parse(value) as StoredObject;
  } catch {
    return undefined;
  }
  const spec = (typeof object.spec === 'object' && object.spec !== null ? object.spec : {}) as Record<string, unknown>;
  const disabled = object.metadata?.disable === true;
  const name = where.name;
  switch (where.kind) {
    case 'site': {
      const type = siteType(spec['site_type']);
      return type === undefined ? undefined : { kind: 'site', record: { ...name, type, labels: stringMap(object.metadata?.labels), disabled } };
    }
    case 'virtual_site':
      return virtualSiteRecord(name, spec, disabled);
    case 'virtual_k8s': {
      const refs = Array.isArray(spec['vsite_refs']) ? (spec['vsite_refs'] as unknown[]) : [];
      const vsiteRefs = refs.flatMap((r) => resolveRef(r, name) ?? []);
      const flavor = resolveRef(spec['default_flavor_ref'], name);
      return { kind: 'virtual_k8s', record: { ...name, vsiteRefs, ...(flavor === undefined ? {} : { defaultFlavorRef: flavor }) } };
    }
    case 'workload_flavor': {
      const vcpus = spec['vcpus'];
      const memory = spec['memory'];
      const storage = spec['ephemeral_storage'];
      if (typeof vcpus !== 'number' || typeof memory !== 'number') return undefined;
      return { kind: 'workload_flavor', record: { ...name, vcpus, memoryMiB: memory, ...(typeof storage === 'number' && storage > 0 ? { ephemeralStorageMiB: storage } : {}) } };
    }
  }
}

function virtualSiteRecord(name: ConfigName, spec: Record<string, unknown>, disabled: boolean): ConfigRecord | undefined {
  const type = siteType(spec['site_type']);
  if (type === undefined) return undefined;
  const expressions = (spec['site_selector'] as { expressions?: unknown } | undefined)?.expressions;
  const selectors: Selector[] = [];
  const problems: string[] = [];
  for (const expression of Array.isArray(expressions) ? (expressions as unknown[]) : []) {
    if (typeof expression !== 'string') continue;
    try {
      selectors.push(parseSelector(expression));
    } catch (error) {
      problems.push(error instanceof SelectorParseError ? error.message : String(error));
    }
  }
  return { kind: 'virtual_site', record: { ...name, siteType: type, selectors, problems, disabled } };
}
