import { StatusError } from '../apimachinery/errors/status-error.js';
import { parseObjectKey } from '../controllers/runtime/object-key.js';
import type { PlacedSite } from '../controllers/placement/placed-site.js';
import type { PlacementView } from '../controllers/placement/placement-view.js';
import type { GenericStore } from '../registry/generic-store.js';
import { resourcePrefix } from '../registry/keys.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import { POD_SITE_LABEL } from '../site-api/site-model.js';

/** The kinds a site can fetch the objects of (`GET /api/sites/v1/objects?kind=…`). */
const PLACED_OBJECT_KINDS = ['configmaps', 'secrets', 'serviceaccounts', 'services', 'persistentvolumeclaims'] as const;
export type PlacedObjectKind = (typeof PLACED_OBJECT_KINDS)[number];

/** One object placed on some of an agent's sites. */
interface PlacedObjectItem {
  readonly cluster: ClusterRef;
  /** Those of the agent's sites the object is placed on, sorted. */
  readonly sites: readonly string[];
  readonly object: KubeObject;
}

export interface PlacedObjectList {
  readonly kind: 'PlacedObjectList';
  /** The store revision the list is consistent at. */
  readonly resourceVersion: string;
  readonly items: readonly PlacedObjectItem[];
}

/** The kind asked for, or a 400 naming the allowed ones. */
export function parsePlacedObjectKind(value: unknown): PlacedObjectKind {
  const kind = PLACED_OBJECT_KINDS.find((k) => k === value);
  if (kind === undefined) throw StatusError.badRequest(`kind: must be one of ${PLACED_OBJECT_KINDS.join(', ')}`);
  return kind;
}

/**
 * The objects of `kind`, across every tenant and virtual cluster, that are placed on any of
 * `sites` (an agent's): placed by the placement view (their annotations, else the vK8s
 * default), except claims made for one site (label `svc.io/siteName`, a StatefulSet's), which
 * belong to that site only. Read from the resource's watch cache, consistent at one revision.
 * The view returns one shared array per placement decision, so each decision is intersected
 * with `sites` once per call.
 */
export function listPlacedObjects(store: GenericStore, placement: PlacementView, kind: PlacedObjectKind, sites: ReadonlySet<string>): PlacedObjectList {
  const resource = { group: '', resource: kind };
  const prefix = resourcePrefix(resource);
  const { items, revision } = store.cache.list();
  const mine = new Map<readonly PlacedSite[], readonly string[]>();
  const result: PlacedObjectItem[] = [];
  for (const kv of items) {
    const key = parseObjectKey(prefix, kv.key);
    if (key === undefined) continue;
    const object = store.codec.decode(kv);
    const own = kind === 'persistentvolumeclaims' ? object.metadata.labels?.[POD_SITE_LABEL] : undefined;
    let names: readonly string[];
    if (own !== undefined) {
      names = sites.has(own) ? [own] : [];
    } else {
      const placed = placement.sitesFor(resource, key.cluster, object);
      names = mine.get(placed) ?? [];
      if (!mine.has(placed)) mine.set(placed, (names = [...new Set(placed.map((s) => s.name).filter((s) => sites.has(s)))].sort()));
    }
    if (names.length > 0) result.push({ cluster: key.cluster, sites: names, object });
  }
  return { kind: 'PlacedObjectList', resourceVersion: String(revision), items: result };
}
