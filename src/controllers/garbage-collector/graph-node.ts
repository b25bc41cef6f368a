import { FOREGROUND_FINALIZER, ORPHAN_FINALIZER } from '../../registry/deletion.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';
import type { ResourceType } from '../../apimachinery/resource-type.js';

/**
 * What the garbage collector remembers of one stored object (kube's graph `node`): who it
 * is, whom it names as owners, and whether it is being deleted and how.
 */
export interface GraphNode {
  /** `<tenant>/<namespace>/<vk8s>/<uid>`: the object within its cluster. */
  readonly id: string;
  /** The work-queue key that reconciles the object (see {@link itemKey}). */
  readonly item: string;
  /** The store key the object lives at. */
  readonly storeKey: string;
  readonly cluster: ClusterRef;
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly owners: readonly OwnerReference[];
  /** metadata.deletionTimestamp is set. */
  readonly beingDeleted: boolean;
  /** Being deleted in the foreground: it waits for its blocking dependents (kube's deletingDependents). */
  readonly deletingDependents: boolean;
  /** Being deleted with its dependents orphaned. */
  readonly orphaning: boolean;
}

export function clusterId(cluster: ClusterRef): string {
  return `${cluster.tenant}/${cluster.namespace}/${cluster.name}`;
}

/**
 * The graph id of an object (or an owner reference's target) in a cluster. Ids and items are
 * joined, not concatenated: every node keeps them, and V8 keeps a concatenation as a tree of
 * its pieces (more objects for each major GC to mark) where a join makes one flat string.
 */
export function nodeId(cluster: ClusterRef, uid: string): string {
  return [cluster.tenant, cluster.namespace, cluster.name, uid].join('/');
}

/** A work item: the object's store key and uid (store keys have no spaces). */
export function itemKey(storeKey: string, uid: string): string {
  return [storeKey, uid].join(' ');
}

export function parseItemKey(item: string): { storeKey: string; uid: string } {
  const space = item.lastIndexOf(' ');
  return { storeKey: item.slice(0, space), uid: item.slice(space + 1) };
}

/** The cluster and name of the object at `storeKey` under a resource's `prefix`, if the key has that shape. */
export function locate(prefix: string, storeKey: string): { cluster: ClusterRef; name: string } | undefined {
  if (!storeKey.startsWith(prefix)) return undefined;
  const parts = storeKey.slice(prefix.length).split('/');
  const [tenant, namespace, vk8s, name] = parts;
  if (parts.length !== 4 || tenant === undefined || namespace === undefined || vk8s === undefined || name === undefined) return undefined;
  return { cluster: { tenant, namespace, name: vk8s }, name };
}

/** Shared by every node without owners (most of them). */
const NO_OWNERS: readonly OwnerReference[] = Object.freeze([]);

/**
 * A node as the graph keeps it: the graph holds one for every object of every resource, so
 * it stores only what it cannot derive. Cluster, name and work item come from the store key
 * when asked; the key, prefix, group and kind strings are shared with the watch cache and
 * the resource. (Otherwise each node would carry a cluster object, its three strings, the
 * name and the work item: six more objects per stored object for each major GC to mark.)
 */
class StoredNode implements GraphNode {
  constructor(
    readonly id: string,
    readonly storeKey: string,
    private readonly prefix: string,
    readonly group: string,
    readonly kind: string,
    readonly uid: string,
    readonly owners: readonly OwnerReference[],
    readonly beingDeleted: boolean,
    readonly deletingDependents: boolean,
    readonly orphaning: boolean,
  ) {}

  get cluster(): ClusterRef {
    return this.located().cluster;
  }

  get name(): string {
    return this.located().name;
  }

  get item(): string {
    return itemKey(this.storeKey, this.uid);
  }

  private located(): { cluster: ClusterRef; name: string } {
    const where = locate(this.prefix, this.storeKey);
    if (where === undefined) throw new Error(`graph node at ${this.storeKey} outside ${this.prefix}`);
    return where;
  }
}

/** The node of an object stored at `storeKey` under the resource's `prefix` (undefined for a key of another shape). */
export function nodeOf(resource: Pick<ResourceType, 'group' | 'kind'>, prefix: string, storeKey: string, object: KubeObject): GraphNode | undefined {
  const where = locate(prefix, storeKey);
  const uid = object.metadata.uid;
  if (where === undefined || uid === undefined || uid === '') return undefined;
  const finalizers = object.metadata.finalizers ?? [];
  const beingDeleted = object.metadata.deletionTimestamp !== undefined;
  const refs = object.metadata.ownerReferences;
  return new StoredNode(
    nodeId(where.cluster, uid),
    storeKey,
    prefix,
    resource.group,
    resource.kind,
    uid,
    refs === undefined || refs.length === 0 ? NO_OWNERS : refs.map((r) => ({ ...r })),
    beingDeleted,
    beingDeleted && finalizers.includes(FOREGROUND_FINALIZER),
    beingDeleted && finalizers.includes(ORPHAN_FINALIZER),
  );
}

/** The API group of an ownerReference's apiVersion (`apps/v1` → `apps`, `v1` → core ""). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Does the reference name this node (uid, kind, group and name all agree)? */
export function refersTo(ref: OwnerReference, node: GraphNode): boolean {
  return ref.uid === node.uid && ref.name === node.name && ref.kind === node.kind && groupOf(ref.apiVersion) === node.group;
}
