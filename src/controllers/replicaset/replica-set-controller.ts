import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { Expectations } from '../runtime/expectations.js';
import { formatObjectKey } from '../runtime/object-key.js';
import { controllerRefOf } from '../runtime/owner-references.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { replicaSetReconciler } from './replica-set-reconciler.js';

/**
 * The ReplicaSet controller (see replicaSetReconciler). A ReplicaSet is synced when it
 * changes, when one of its pods appears, changes or goes (which also settles its
 * expectations), when its owning Deployment changes (its placement may have), and when its
 * cluster's placement inputs change.
 */
export function replicaSetController(options: { workers?: number } = {}): ControllerStarter {
  return {
    name: 'replicaset',
    start: (context) => {
      const expectations = new Expectations();
      const controller = startControllerLoop({ name: 'replicaset', logger: context.logger, metrics: context.metrics, workers: context.workers ?? options.workers ?? 16, reconcile: replicaSetReconciler(context, expectations) });
      const { deployments, replicaSets, pods } = context.informers;
      const ownerKey = (pod: KubeObject, cluster: ClusterRef): { cluster: ClusterRef; name: string } | undefined => {
        const ref = controllerRefOf(pod);
        return ref?.kind === 'ReplicaSet' ? { cluster, name: ref.name } : undefined;
      };
      context.on.informer(replicaSets, (event) => controller.enqueue(event.key));
      context.on.informer(pods, (event) => {
        const owner = ownerKey(event.object, event.key.cluster);
        if (owner !== undefined) {
          const key = formatObjectKey(owner);
          const uid = event.object.metadata.uid ?? '';
          const deleting = event.object.metadata.deletionTimestamp !== undefined;
          if (event.type === 'deleted' || (deleting && (event.type === 'added' || event.old.metadata.deletionTimestamp === undefined))) expectations.deletionObserved(key, uid);
          else if (event.type === 'added') expectations.creationObserved(key);
          controller.enqueue(owner);
        }
        if (event.type === 'updated') {
          const before = ownerKey(event.old, event.key.cluster);
          if (before !== undefined && before.name !== owner?.name) controller.enqueue(before);
        }
      });
      context.on.informer(deployments, (event) => {
        if (event.type !== 'updated') return;
        for (const rs of replicaSets.dependentsOf(event.object.metadata.uid ?? '')) controller.enqueue({ cluster: event.key.cluster, name: rs.metadata.name ?? '' });
      });
      context.on.clusterChange((cluster) => controller.enqueueAll(replicaSets, cluster));
      controller.enqueueAll(replicaSets);
      return controller;
    },
  };
}
