import { StatusError, type StatusReason } from '../../apimachinery/errors/status-error.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import type { PropagationPolicy } from '../../registry/strategy.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** Whether `error` is a Kubernetes Status error with `reason`. */
export function hasReason(error: unknown, reason: StatusReason): boolean {
  return error instanceof StatusError && error.reason === reason;
}

/** A write that found its object gone, or replaced by another of the same name. */
class Gone extends Error {}

/**
 * A controller's writes to one resource, through its GenericStore as the platform's internal
 * client (field manager `<name>-controller`): creates are defaulted as the API defaults
 * request bodies; deletes and updates are pinned to the uid the controller looked at, so a
 * same-named successor is never touched.
 */
export class ObjectWriter {
  constructor(
    readonly store: GenericStore,
    readonly fieldManager: string,
  ) {}

  scope(cluster: ClusterRef): RequestScope {
    return { cluster, dryRun: false, fieldManager: this.fieldManager };
  }

  /** POST: scheme defaults, then the store's create (AlreadyExists and Invalid are thrown as Status errors). */
  create(cluster: ClusterRef, object: KubeObject): Promise<KubeObject> {
    this.store.strategy.defaults(object);
    return this.store.create(this.scope(cluster), object);
  }

  /** DELETE with a uid precondition; `gone` when it was already gone (or replaced). */
  async delete(cluster: ClusterRef, name: string, uid: string, propagationPolicy?: PropagationPolicy): Promise<'deleted' | 'gone'> {
    try {
      await this.store.delete(this.scope(cluster), name, { preconditions: { uid }, ...(propagationPolicy === undefined ? {} : { propagationPolicy }) });
      return 'deleted';
    } catch (error) {
      if (hasReason(error, 'NotFound') || hasReason(error, 'Conflict')) return 'gone';
      throw error;
    }
  }

  /**
   * A read-modify-write of object `name` with uid `uid` (conflicts retried): `change` returns
   * the new object, or undefined for "nothing to write". `gone` when the object is gone.
   */
  async update(cluster: ClusterRef, name: string, uid: string, change: (current: KubeObject) => KubeObject | undefined, subresource?: 'status'): Promise<'written' | 'unchanged' | 'gone'> {
    let outcome: 'written' | 'unchanged' = 'unchanged';
    try {
      await this.store.update(
        this.scope(cluster),
        name,
        (current) => {
          if (current.metadata.uid !== uid) throw new Gone();
          const next = change(current);
          outcome = next === undefined ? 'unchanged' : 'written';
          return next ?? current;
        },
        { retryOnConflict: true, ...(subresource === undefined ? {} : { subresource }) },
      );
      return outcome;
    } catch (error) {
      if (error instanceof Gone || hasReason(error, 'NotFound')) return 'gone';
      throw error;
    }
  }
}
