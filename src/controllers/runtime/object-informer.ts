import type { Logger } from '../../observability/logger.js';
import type { GenericStore } from '../../registry/generic-store.js';
import { resourcePrefix } from '../../registry/keys.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KeyValue, WatchEvent } from '../../store/types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { clusterKeyOf, parseObjectKey, type ObjectKey } from './object-key.js';
import { partialObjectMetadata } from './partial-object-metadata.js';

/** One change an informer saw, after its cache applied it. */
export type InformerEvent =
  | { readonly type: 'added'; readonly key: ObjectKey; readonly object: KubeObject }
  | { readonly type: 'updated'; readonly key: ObjectKey; readonly object: KubeObject; readonly old: KubeObject }
  | { readonly type: 'deleted'; readonly key: ObjectKey; readonly object: KubeObject };

export type InformerHandler = (event: InformerEvent) => void;

export interface ObjectInformerOptions {
  /**
   * Keep only each object's apiVersion, kind and metadata ({@link partialObjectMetadata}), as
   * client-go's metadata informers do, for controllers that read nothing else (the placement
   * recorder's Secrets and ConfigMaps). The informer holds every object of its resource for
   * as long as the object lives; a full decoding would keep the data too — in the live heap
   * each major GC marks, and for Secrets, decoded secret data in controller memory.
   */
  readonly metadataOnly?: boolean;
}

/** What controllers read from an informer and how they hear of changes (ObjectInformer, or a view of one). */
export interface Informer {
  onEvent(handler: InformerHandler): void;
  get(cluster: ClusterRef, name: string): KubeObject | undefined;
  list(cluster?: ClusterRef): KubeObject[];
  dependentsOf(uid: string): KubeObject[];
  keys(): ObjectKey[];
}

/**
 * client-go's shared informer over one resource's watch cache (every cluster of every
 * tenant): a decoded, read-only mirror of the objects (or of their metadata only, see
 * {@link ObjectInformerOptions.metadataOnly}), an index of dependents by owner uid
 * and of objects by cluster, and handlers told every change in order. When its cache watch
 * fails (the cache relisted, or the informer fell behind) it takes a fresh snapshot and
 * tells the handlers the difference, so level-based controllers never miss a state.
 *
 * Objects handed out are shared: never mutate them (clone first).
 */
export class ObjectInformer implements Informer {
  private readonly objects = new Map<string, { readonly key: ObjectKey; readonly object: KubeObject }>();
  private readonly byOwner = new Map<string, Set<string>>();
  /**
   * Per cluster: one ClusterRef every key of the cluster shares (the informer keeps a key per
   * object, and a cluster object with its three strings in each would be four more heap
   * objects per object for each major GC to mark), and the store keys of its objects.
   */
  private readonly byCluster = new Map<string, { readonly ref: ClusterRef; readonly keys: Set<string> }>();
  private readonly handlers: InformerHandler[] = [];
  private readonly prefix: string;
  private synced = false;
  private readonly metadataOnly: boolean;

  constructor(
    readonly store: GenericStore,
    private readonly logger: Logger,
    options: ObjectInformerOptions = {},
  ) {
    this.prefix = resourcePrefix(store.strategy.resource);
    this.metadataOnly = options.metadataOnly ?? false;
  }

  /** Adds a handler; it is told about changes from now on (use {@link list} for the present). */
  onEvent(handler: InformerHandler): void {
    this.handlers.push(handler);
  }

  get hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Loads the cache's snapshot (the handlers hear an `added` for each object), then follows
   * its events until `signal` aborts. Resolves once the first snapshot is in; the following
   * runs in the background.
   */
  start(signal: AbortSignal): Promise<void> {
    let events = this.resync(signal);
    this.synced = true;
    void (async () => {
      for (;;) {
        try {
          for await (const event of events) this.apply(event);
          return;
        } catch (error) {
          if (signal.aborted) return;
          this.logger.info({ prefix: this.prefix, err: error instanceof Error ? error.message : String(error) }, 'informer watch ended; resyncing from the cache');
          await new Promise((resolve) => setTimeout(resolve, 50).unref());
          if (signal.aborted) return;
          events = this.resync(signal);
        }
      }
    })();
    return Promise.resolve();
  }

  /** The object `name` of `cluster`, if the informer has it. */
  get(cluster: ClusterRef, name: string): KubeObject | undefined {
    return this.objects.get(this.prefix + clusterKeyOf(cluster) + '/' + name)?.object;
  }

  /** Every object of `cluster` (of every cluster when unset). */
  list(cluster?: ClusterRef): KubeObject[] {
    if (cluster === undefined) return [...this.objects.values()].map((e) => e.object);
    const keys = this.byCluster.get(clusterKeyOf(cluster))?.keys ?? new Set<string>();
    return [...keys].flatMap((k) => this.objects.get(k)?.object ?? []);
  }

  /** Every object whose ownerReferences name `uid` (uids are unique across clusters). */
  dependentsOf(uid: string): KubeObject[] {
    return [...(this.byOwner.get(uid) ?? [])].flatMap((k) => this.objects.get(k)?.object ?? []);
  }

  /** The key (cluster and name) of every object. */
  keys(): ObjectKey[] {
    return [...this.objects.values()].map((e) => e.key);
  }

  private resync(signal: AbortSignal): AsyncIterableIterator<WatchEvent> {
    const snapshot = this.store.cache.list();
    const events = this.store.cache.watch(this.prefix, { fromRevision: snapshot.revision, signal });
    const seen = new Set<string>();
    for (const kv of snapshot.items) {
      seen.add(kv.key);
      this.put(kv);
    }
    for (const storeKey of [...this.objects.keys()]) if (!seen.has(storeKey)) this.remove(storeKey);
    return events;
  }

  private apply(event: WatchEvent): void {
    if (event.type === 'DELETED') this.remove(event.key);
    else this.put(event.kv);
  }

  private put(kv: KeyValue): void {
    const parsed = parseObjectKey(this.prefix, kv.key);
    if (parsed === undefined) return;
    const previous = this.objects.get(kv.key);
    if (previous !== undefined && previous.object.metadata.resourceVersion === String(kv.modRevision)) return;
    // A projection is made from a transient decoding: the codec's memo would keep the whole object.
    const object = this.metadataOnly ? partialObjectMetadata(this.store.codec.decodeTransient(kv)) : this.store.codec.decode(kv);
    if (previous !== undefined) this.unindex(kv.key, previous);
    const key = previous?.key ?? { cluster: this.byCluster.get(clusterKeyOf(parsed.cluster))?.ref ?? parsed.cluster, name: parsed.name };
    this.objects.set(kv.key, { key, object });
    this.index(kv.key, key, object);
    this.tell(previous === undefined ? { type: 'added', key, object } : { type: 'updated', key, object, old: previous.object });
  }

  private remove(storeKey: string): void {
    const previous = this.objects.get(storeKey);
    if (previous === undefined) return;
    this.objects.delete(storeKey);
    this.unindex(storeKey, previous);
    this.tell({ type: 'deleted', key: previous.key, object: previous.object });
  }

  private index(storeKey: string, key: ObjectKey, object: KubeObject): void {
    for (const ref of object.metadata.ownerReferences ?? []) addTo(this.byOwner, ref.uid, storeKey);
    const at = clusterKeyOf(key.cluster);
    const cluster = this.byCluster.get(at);
    if (cluster === undefined) this.byCluster.set(at, { ref: key.cluster, keys: new Set([storeKey]) });
    else cluster.keys.add(storeKey);
  }

  private unindex(storeKey: string, { key, object }: { readonly key: ObjectKey; readonly object: KubeObject }): void {
    for (const ref of object.metadata.ownerReferences ?? []) removeFrom(this.byOwner, ref.uid, storeKey);
    const at = clusterKeyOf(key.cluster);
    const cluster = this.byCluster.get(at);
    if (cluster === undefined) return;
    cluster.keys.delete(storeKey);
    if (cluster.keys.size === 0) this.byCluster.delete(at);
  }

  private tell(event: InformerEvent): void {
    for (const handler of this.handlers) {
      try {
        handler(event);
      } catch (error) {
        this.logger.error({ prefix: this.prefix, err: error }, 'informer handler failed');
      }
    }
  }
}

function addTo(index: Map<string, Set<string>>, at: string, storeKey: string): void {
  let keys = index.get(at);
  if (keys === undefined) index.set(at, (keys = new Set()));
  keys.add(storeKey);
}

function removeFrom(index: Map<string, Set<string>>, at: string, storeKey: string): void {
  const keys = index.get(at);
  if (keys === undefined) return;
  keys.delete(storeKey);
  if (keys.size === 0) index.delete(at);
}
