import type { Informer } from '../runtime/object-informer.js';
import { formatObjectKey, type ObjectKey } from '../runtime/object-key.js';
import type { Expectations } from '../runtime/expectations.js';
import { controllerRefOf } from '../runtime/owner-references.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';

export interface DependentEventsOptions {
  /** The kind of owner this controller manages (`StatefulSet`); dependents controlled by others are ignored. */
  readonly ownerKind: string;
  readonly enqueue: (owner: ObjectKey) => void;
  /** Told of creations and deletions the owner waits for. */
  readonly expectations?: Expectations;
}

/**
 * Feeds a controller from the informer of what it creates (pods of StatefulSets and Jobs,
 * Jobs of CronJobs): every change of a dependent enqueues its controlling owner, and a new
 * dependent, or one newly marked for deletion or gone, settles the owner's expectations.
 */
export function watchDependents(informer: Informer, options: DependentEventsOptions): void {
  const ownerOf = (cluster: ClusterRef, object: KubeObject): ObjectKey | undefined => {
    const ref = controllerRefOf(object);
    return ref === undefined || ref.kind !== options.ownerKind ? undefined : { cluster, name: ref.name };
  };
  informer.onEvent((event) => {
    const owner = ownerOf(event.key.cluster, event.object);
    const uid = event.object.metadata.uid ?? '';
    switch (event.type) {
      case 'added':
        if (owner === undefined) return;
        options.expectations?.creationObserved(formatObjectKey(owner));
        options.enqueue(owner);
        return;
      case 'updated': {
        const before = ownerOf(event.key.cluster, event.old);
        if (owner !== undefined && event.old.metadata.deletionTimestamp === undefined && event.object.metadata.deletionTimestamp !== undefined) {
          options.expectations?.deletionObserved(formatObjectKey(owner), uid);
        }
        if (owner !== undefined) options.enqueue(owner);
        if (before !== undefined && before.name !== owner?.name) options.enqueue(before);
        return;
      }
      case 'deleted':
        if (owner === undefined) return;
        options.expectations?.deletionObserved(formatObjectKey(owner), uid);
        options.enqueue(owner);
        return;
    }
  });
}
