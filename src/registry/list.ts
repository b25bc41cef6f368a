import { StatusError, type ResourceRef } from '../apimachinery/errors/status-error.js';
import { matchesFieldSelector, type FieldSelector } from '../apimachinery/fields/field-selector.js';
import { matchesSelector, type Selector } from '../apimachinery/labels/selector.js';
import { encodeContinue } from '../store/continue-token.js';
import { isStoreError } from '../store/errors.js';
import type { KeyValue, Store } from '../store/types.js';
import type { WatchCache } from '../store/watch-cache.js';
import type { KubeObject } from '../apimachinery/object.js';
import { cacheIsCurrent } from './consistent-read.js';
import type { ObjectCodec } from './object-codec.js';
import { storeErrorToStatus } from './store-errors.js';
import type { Strategy } from './strategy.js';

/** A list request's options (metav1.ListOptions), parsed. */
export interface ListQuery {
  readonly labelSelector?: Selector;
  readonly fieldSelector?: FieldSelector;
  readonly limit?: number;
  readonly continue?: string;
  /** As sent: unset (consistent read), "0" (any cached state), or a revision. */
  readonly resourceVersion?: string;
}

export interface ListResponse {
  readonly items: KubeObject[];
  readonly resourceVersion: string;
  readonly continue?: string;
  /**
   * When the list was served by the watch cache: the cache's stored values of `items`, in the
   * same order (their JSON is memoized by the codec). `items` are then shared and read-only.
   */
  readonly stored?: readonly KeyValue[];
}

interface ListSource {
  readonly store: Store;
  readonly cache: WatchCache;
  readonly codec: ObjectCodec;
  readonly strategy: Strategy;
  readonly prefix: string;
  readonly ref: ResourceRef;
  /** Only keys it accepts are listed (a view over part of the prefix, e.g. one tenant's Nodes of `/sites/nodes/`). */
  readonly keyFilter?: (key: string) => boolean;
  /** Ends a consistent list's wait for the watch cache (see consistent-read.ts). */
  readonly waitLimit?: () => AbortSignal;
}

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** The fields a field selector may use: metadata.name, metadata.namespace and the kind's own. */
function selectableFields(object: KubeObject, strategy: Strategy): Record<string, string> {
  return { 'metadata.name': object.metadata.name ?? '', 'metadata.namespace': object.metadata.namespace ?? '', ...strategy.selectableFields(object) };
}

export function matchesQuery(object: KubeObject, query: Pick<ListQuery, 'labelSelector' | 'fieldSelector'>, strategy: Strategy): boolean {
  if (query.labelSelector !== undefined && !matchesSelector(query.labelSelector, object.metadata.labels)) return false;
  if (query.fieldSelector !== undefined && !matchesFieldSelector(query.fieldSelector, selectableFields(object, strategy))) return false;
  return true;
}

/** Parses a resourceVersion parameter: a non-negative integer. */
export function parseResourceVersion(value: string): number {
  if (!/^\d+$/.test(value)) throw StatusError.badRequest(`resourceVersion: Invalid value: "${value}": must be a non-negative integer`);
  return Number(value);
}

/**
 * kube-apiserver 1.17's list semantics over the store and the watch cache:
 * - `continue` or `limit` → pages read from the store at one snapshot revision (410 Expired
 *   once that revision is compacted); with `resourceVersion=N` and a limit, at revision N;
 * - `resourceVersion="0"` → the watch cache, whatever state it has (limit ignored);
 * - `resourceVersion=N` → the watch cache once it has seen N, else the store;
 * - unset → a consistent read: from the watch cache once it has caught up with the store
 *   (kube 1.31's consistent lists from cache, see consistent-read.ts), else from the store.
 * Selectors filter; a page is filled up to `limit` matches.
 */
export async function listObjects(source: ListSource, query: ListQuery): Promise<ListResponse> {
  const rv = query.resourceVersion === undefined || query.resourceVersion === '' ? undefined : parseResourceVersion(query.resourceVersion);
  if (query.continue !== undefined && query.continue !== '') return pagedFromStore(source, query, undefined);
  if (query.limit !== undefined && query.limit > 0 && rv !== 0) return pagedFromStore(source, query, rv);
  if (rv !== undefined && rv <= source.cache.revision) return fromCache(source, query);
  if (rv === undefined && (await cacheIsCurrent(source))) return fromCache(source, query);
  return pagedFromStore(source, { ...query, limit: undefined }, undefined);
}

function fromCache(source: ListSource, query: ListQuery): ListResponse {
  const { items, revision } = source.cache.list(source.prefix);
  const objects: KubeObject[] = [];
  const stored: KeyValue[] = [];
  for (const kv of items) {
    if (source.keyFilter?.(kv.key) === false) continue;
    const object = source.codec.decode(kv);
    if (!matchesQuery(object, query, source.strategy)) continue;
    objects.push(object);
    stored.push(kv);
  }
  return { items: objects, resourceVersion: String(revision), stored };
}

async function pagedFromStore(source: ListSource, query: ListQuery, atRevision: number | undefined): Promise<ListResponse> {
  const limit = query.limit !== undefined && query.limit > 0 ? query.limit : undefined;
  const objects: KubeObject[] = [];
  let token = query.continue === '' ? undefined : query.continue;
  let revision = atRevision;
  let last: KeyValue | undefined;
  for (;;) {
    let page;
    try {
      page = await source.store.list(source.prefix, token !== undefined ? { continue: token, limit } : { revision, limit });
    } catch (error) {
      if (isStoreError(error, 'Compacted')) {
        throw token !== undefined ? StatusError.expired(EXPIRED_CONTINUE) : StatusError.tooOldResourceVersion(revision ?? 0, error.details.compactedRevision ?? 0);
      }
      throw storeErrorToStatus(error, source.ref, '');
    }
    revision = page.revision;
    for (const kv of page.items) {
      if (source.keyFilter?.(kv.key) === false) continue;
      const object = source.codec.decodeOnce(kv);
      if (!matchesQuery(object, query, source.strategy)) continue;
      objects.push(object);
      last = kv;
      if (limit !== undefined && objects.length === limit) {
        const more = page.continue !== undefined || kv !== page.items[page.items.length - 1];
        return { items: objects, resourceVersion: String(revision), ...(more ? { continue: encodeContinue({ revision, lastKey: last.key, prefix: source.prefix }) } : {}) };
      }
    }
    if (page.continue === undefined) return { items: objects, resourceVersion: String(revision) };
    token = page.continue;
  }
}
