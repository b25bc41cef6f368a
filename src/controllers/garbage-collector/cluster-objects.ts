import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { resourcePrefix } from '../../registry/keys.js';
import type { PropagationPolicy } from '../../registry/strategy.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { KubeObject, ObjectMeta, OwnerReference } from '../../apimachinery/object.js';
import { RESOURCES } from '../../vk8s/resources.js';
import { groupOf } from './graph-node.js';

/** The field manager the collector's writes are recorded under in managedFields. */
const GARBAGE_COLLECTOR_MANAGER = 'garbage-collector';

/** What a write found: it was made, was not needed, or the object (with that uid) is gone. */
export type WriteOutcome = 'written' | 'unchanged' | 'gone';

/** What a delete did: removed the object, marked it for deletion (finalizers pending), or found it gone. */
export type DeleteOutcome = 'removed' | 'marked' | 'gone';

export interface LiveDependent {
  readonly store: GenericStore;
  readonly object: KubeObject;
}

class ObjectReplaced extends Error {}

const isNotFound = (error: unknown): boolean => error instanceof StatusError && error.reason === 'NotFound';

/**
 * The collector's live view of and writes to virtual-cluster objects, always through the
 * GenericStores (their validation, finalizer and deletion rules) and always read from the
 * store, never from a possibly lagging cache. Every write is conditioned on the uid the
 * decision was made for.
 */
export class ClusterObjects {
  private readonly byPrefix: ReadonlyArray<readonly [string, GenericStore]>;

  constructor(private readonly storage: VirtualClusterStorage) {
    this.byPrefix = storage.all.map((s) => [resourcePrefix(s.strategy.resource), s] as const);
  }

  /** The store that keeps `storeKey`. */
  storeAt(storeKey: string): GenericStore | undefined {
    return this.byPrefix.find(([prefix]) => storeKey.startsWith(prefix))?.[1];
  }

  /** The store of the kind an owner reference names (by API group and kind; any version). */
  storeOfOwner(ref: Pick<OwnerReference, 'apiVersion' | 'kind'>): GenericStore | undefined {
    const group = groupOf(ref.apiVersion);
    const resource = RESOURCES.find((r) => r.group === group && r.kind === ref.kind);
    return resource === undefined ? undefined : this.storage.storeFor(resource);
  }

  /** The object now, or undefined when it does not exist (a name no key can hold, from an ownerReference, included). */
  async get(store: GenericStore, cluster: ClusterRef, name: string): Promise<KubeObject | undefined> {
    try {
      return await store.get(cluster, name);
    } catch (error) {
      if (isNotFound(error) || (error instanceof StatusError && error.reason === 'BadRequest')) return undefined;
      throw error;
    }
  }

  /** Every object of the cluster, of any kind, whose ownerReferences name `uid` (consistent reads). */
  async dependentsOf(cluster: ClusterRef, uid: string): Promise<LiveDependent[]> {
    const found: LiveDependent[] = [];
    for (const store of this.storage.all) {
      const { items } = await store.list(cluster, {});
      for (const object of items) if ((object.metadata.ownerReferences ?? []).some((r) => r.uid === uid)) found.push({ store, object });
    }
    return found;
  }

  /**
   * Rewrites the metadata of the object `name` if it still has `uid` (retrying write
   * conflicts); `change` answers undefined when nothing is to change.
   */
  async updateMetadata(store: GenericStore, cluster: ClusterRef, name: string, uid: string, change: (meta: ObjectMeta) => ObjectMeta | undefined): Promise<WriteOutcome> {
    let outcome: WriteOutcome = 'unchanged';
    try {
      await store.update(
        scopeOf(cluster),
        name,
        (current) => {
          if (current.metadata.uid !== uid) throw new ObjectReplaced();
          const metadata = change(current.metadata);
          outcome = metadata === undefined ? 'unchanged' : 'written';
          return metadata === undefined ? current : { ...current, metadata };
        },
        { retryOnConflict: true },
      );
      return outcome;
    } catch (error) {
      if (error instanceof ObjectReplaced || isNotFound(error)) return 'gone';
      throw error;
    }
  }

  /** Deletes the object `name` if it still has `uid`, with `policy`. */
  async delete(store: GenericStore, cluster: ClusterRef, name: string, uid: string, policy: PropagationPolicy): Promise<DeleteOutcome> {
    try {
      const { removed } = await store.delete(scopeOf(cluster), name, { propagationPolicy: policy, preconditions: { uid } });
      return removed ? 'removed' : 'marked';
    } catch (error) {
      if (isNotFound(error)) return 'gone';
      if (error instanceof StatusError && error.reason === 'Conflict' && error.message.includes('Precondition failed: UID')) return 'gone';
      throw error;
    }
  }
}

function scopeOf(cluster: ClusterRef): RequestScope {
  return { cluster, dryRun: false, fieldManager: GARBAGE_COLLECTOR_MANAGER };
}
