import { StatusError } from '../apimachinery/errors/status-error.js';
import { parseObjectKey } from '../controllers/runtime/object-key.js';
import type { PlacedSite } from '../controllers/placement/placed-site.js';
import type { PlacementView } from '../controllers/placement/placement-view.js';
import type { GenericStore } from '../registry/generic-store.js';
import { objectKey, resourcePrefix } from '../registry/keys.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import { POD_SITE_LABEL } from '../site-api/site-model.js';

/** The kinds a site can fetch the objects of (`GET /api/sites/v1/objects?kind=…`). */
const PLACED_OBJECT_KINDS = ['configmaps', 'secrets', 'serviceaccounts', 'services', 'endpoints', 'persistentvolumeclaims'] as const;
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

/** A long poll's terms: answer once something changed after `after` (a list's resourceVersion), or after `timeoutMs`. */
export interface PlacedObjectWait {
  readonly after: number;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

/** `after` and `timeoutSeconds` of `GET /objects`, or undefined for a plain list; a 400 for values that are not whole numbers. */
export function parsePlacedObjectWait(query: Record<string, unknown>, signal: AbortSignal): PlacedObjectWait | undefined {
  const after = query['after'];
  if (after === undefined) return undefined;
  const whole = (value: unknown, field: string): number => {
    if (typeof value !== 'string' || !/^\d{1,15}$/.test(value)) throw StatusError.badRequest(`${field}: must be a whole number`);
    return Number(value);
  };
  const timeout = query['timeoutSeconds'];
  return { after: whole(after, 'after'), timeoutMs: timeout === undefined ? MAX_PLACED_WAIT_MS : Math.min(whole(timeout, 'timeoutSeconds') * 1000, MAX_PLACED_WAIT_MS), signal };
}

/** The kind asked for, or a 400 naming the allowed ones. */
export function parsePlacedObjectKind(value: unknown): PlacedObjectKind {
  const kind = PLACED_OBJECT_KINDS.find((k) => k === value);
  if (kind === undefined) throw StatusError.badRequest(`kind: must be one of ${PLACED_OBJECT_KINDS.join(', ')}`);
  return kind;
}

const SERVICES = { group: '', resource: 'services' } as const;

/**
 * The objects of `kind`, across every tenant and virtual cluster, that are placed on any of
 * `sites` (an agent's): placed by the placement view (their annotations, else the vK8s
 * default), except claims made for one site (label `svc.io/siteName`, a StatefulSet's), which
 * belong to that site only, and Endpoints, which go where their Service is placed (`services`:
 * the Services' store). Read from the resource's watch cache, consistent at one revision.
 * The view returns one shared array per placement decision, so each decision is intersected
 * with `sites` once per call.
 */
export function listPlacedObjects(store: GenericStore, placement: PlacementView, kind: PlacedObjectKind, sites: ReadonlySet<string>, services?: GenericStore): PlacedObjectList {
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
      const placedAs = kind === 'endpoints' ? serviceOf(services, key.cluster, key.name) : { resource, object };
      if (placedAs === undefined) continue;
      const placed = placement.sitesFor(placedAs.resource, key.cluster, placedAs.object);
      names = mine.get(placed) ?? [];
      if (!mine.has(placed)) mine.set(placed, (names = [...new Set(placed.map((s) => s.name).filter((s) => sites.has(s)))].sort()));
    }
    if (names.length > 0) result.push({ cluster: key.cluster, sites: names, object });
  }
  return { kind: 'PlacedObjectList', resourceVersion: String(revision), items: result };
}

/** The Service an Endpoints object belongs to (the same cluster and name), as placement needs it. */
function serviceOf(services: GenericStore | undefined, cluster: ClusterRef, name: string): { resource: typeof SERVICES; object: KubeObject } | undefined {
  if (services === undefined) throw new Error('placing Endpoints needs the Services store');
  const found = services.cache.lookup(objectKey(SERVICES, cluster, name));
  return found.state === 'present' ? { resource: SERVICES, object: services.codec.decode(found.kv) } : undefined;
}

/** How long a `GET /objects?…&after=` waits for a change at most. */
const MAX_PLACED_WAIT_MS = 60_000;

/**
 * Waits until any of `stores` has an event after revision `after` (a list's resourceVersion),
 * `timeoutMs` passes or `signal` aborts: the long poll behind `GET /objects?kind=…&after=…`,
 * so an agent hears of a changed Service or Endpoints within one round trip instead of a
 * polling period. Returns at once when the watch cache no longer holds events that old.
 */
export async function waitForPlacedChange(stores: readonly GenericStore[], after: number, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.min(timeoutMs, MAX_PLACED_WAIT_MS));
  const onAbort = (): void => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race(
      stores.map(async (store) => {
        try {
          for await (const _event of store.cache.watch(resourcePrefix(store.ref), { fromRevision: after, signal: stop.signal })) return;
        } catch {
          // Too old for the cache's history, or the cache stopped: the caller lists now.
        }
      }),
    );
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    stop.abort();
  }
}
