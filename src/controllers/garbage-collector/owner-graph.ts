import { nodeId, refersTo, type GraphNode } from './graph-node.js';

/**
 * The owner → dependents graph of every virtual cluster (kube's GraphBuilder `uidToNode`),
 * kept from the watch caches' events. Owners are found by uid within the dependent's own
 * cluster. Each change answers which work items to reconcile; the graph may lag the store,
 * so it only decides what to look at, never what to delete.
 */
export class OwnerGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly idAt = new Map<string, string>();
  /** Owner id → ids of the nodes whose ownerReferences name it (the owner may be absent). */
  private readonly dependents = new Map<string, Set<string>>();

  get size(): number {
    return this.nodes.size;
  }

  get(id: string): GraphNode | undefined {
    return this.nodes.get(id);
  }

  /** The known nodes that name the object `id` as an owner. */
  dependentsOf(id: string): GraphNode[] {
    return [...(this.dependents.get(id) ?? [])].flatMap((d) => this.nodes.get(d) ?? []);
  }

  /** Adds or replaces the object at `node.storeKey`; returns the work items the change calls for. */
  upsert(node: GraphNode): string[] {
    const previousId = this.idAt.get(node.storeKey);
    const work = new Set<string>();
    let old: GraphNode | undefined;
    if (previousId !== undefined && previousId !== node.id) for (const item of this.removeAt(node.storeKey)) work.add(item);
    else old = previousId === undefined ? undefined : this.nodes.get(previousId);
    if (old !== undefined) this.unlink(old);
    this.nodes.set(node.id, node);
    this.idAt.set(node.storeKey, node.id);
    this.link(node);
    if (this.needsAttention(node)) work.add(node.item);
    for (const owner of this.ownersWaiting([...(old?.owners ?? []), ...node.owners].map((r) => nodeId(node.cluster, r.uid)))) work.add(owner);
    return [...work];
  }

  /** The object at `storeKey` is gone: its dependents are looked at, and owners waiting on it. */
  removeAt(storeKey: string): string[] {
    const id = this.idAt.get(storeKey);
    const node = id === undefined ? undefined : this.nodes.get(id);
    if (id === undefined || node === undefined) return [];
    this.idAt.delete(storeKey);
    this.nodes.delete(id);
    this.unlink(node);
    const work = new Set(this.dependentsOf(id).map((d) => d.item));
    for (const owner of this.ownersWaiting(node.owners.map((r) => nodeId(node.cluster, r.uid)))) work.add(owner);
    return [...work];
  }

  /**
   * Replaces every node whose store key starts with `prefix` by `nodes` (a cache relisted, or
   * the start): nodes not listed any more are removed. Returns the work items called for.
   */
  replace(prefix: string, nodes: readonly GraphNode[]): string[] {
    const listed = new Set(nodes.map((n) => n.storeKey));
    const work = new Set<string>();
    for (const storeKey of [...this.idAt.keys()]) {
      if (storeKey.startsWith(prefix) && !listed.has(storeKey)) for (const item of this.removeAt(storeKey)) work.add(item);
    }
    for (const node of nodes) for (const item of this.upsert(node)) work.add(item);
    return [...work];
  }

  /** Every node that needs a look now (after loading a whole state at start). */
  attention(): string[] {
    return [...this.nodes.values()].filter((n) => this.needsAttention(n)).map((n) => n.item);
  }

  /**
   * Does the object need reconciling? When it is being deleted with the `orphan` or
   * `foregroundDeletion` finalizer; or, when not being deleted, when one of its owners is
   * unknown here (maybe absent), is not the object the reference names, or is deleting its
   * dependents in the foreground.
   */
  needsAttention(node: GraphNode): boolean {
    if (node.orphaning || node.deletingDependents) return true;
    if (node.beingDeleted) return false;
    return node.owners.some((ref) => {
      const owner = this.nodes.get(nodeId(node.cluster, ref.uid));
      return owner === undefined || !refersTo(ref, owner) || owner.deletingDependents;
    });
  }

  private ownersWaiting(ids: readonly string[]): string[] {
    return [...new Set(ids)].flatMap((id) => {
      const owner = this.nodes.get(id);
      return owner?.deletingDependents === true ? [owner.item] : [];
    });
  }

  private link(node: GraphNode): void {
    for (const ref of node.owners) {
      const ownerId = nodeId(node.cluster, ref.uid);
      let set = this.dependents.get(ownerId);
      if (set === undefined) this.dependents.set(ownerId, (set = new Set()));
      set.add(node.id);
    }
  }

  private unlink(node: GraphNode): void {
    for (const ref of node.owners) {
      const ownerId = nodeId(node.cluster, ref.uid);
      const set = this.dependents.get(ownerId);
      set?.delete(node.id);
      if (set?.size === 0) this.dependents.delete(ownerId);
    }
  }
}
