import type { KubeObject } from '../../vk8s/object.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { Expectations } from '../runtime/expectations.js';
import { formatObjectKey } from '../runtime/object-key.js';
import { controllerRefOf } from '../runtime/pod-state.js';
import { startQueueController } from '../runtime/queue-controller.js';
import { deploymentReconciler } from './deployment-reconciler.js';

/**
 * The Deployment controller (see deploymentReconciler). A Deployment is synced when it
 * changes, when one of its ReplicaSets changes, when a pod of one of its ReplicaSets goes
 * (Recreate waits for that), and when its cluster's placement inputs change.
 */
export function deploymentController(options: { workers?: number } = {}): ControllerStarter {
  return {
    name: 'deployment',
    start: (context) => {
      const expectations = new Expectations();
      const controller = startQueueController('deployment', context, deploymentReconciler(context, expectations), options.workers ?? 4);
      const { deployments, replicaSets, pods } = context.informers;
      const ownerOf = (rs: KubeObject, cluster: { tenant: string; namespace: string; name: string }): void => {
        const ref = controllerRefOf(rs);
        if (ref?.kind === 'Deployment') controller.enqueue({ cluster, name: ref.name });
      };
      context.on.informer(deployments, (event) => controller.enqueue(event.key));
      context.on.informer(replicaSets, (event) => {
        const ref = controllerRefOf(event.object);
        if (event.type === 'added' && ref?.kind === 'Deployment') expectations.creationObserved(formatObjectKey({ cluster: event.key.cluster, name: ref.name }));
        ownerOf(event.object, event.key.cluster);
        if (event.type === 'updated' && controllerRefOf(event.old)?.uid !== ref?.uid) ownerOf(event.old, event.key.cluster);
      });
      context.on.informer(pods, (event) => {
        if (event.type !== 'deleted') return;
        const ref = controllerRefOf(event.object);
        if (ref?.kind !== 'ReplicaSet') return;
        const rs = replicaSets.get(event.key.cluster, ref.name);
        if (rs !== undefined) ownerOf(rs, event.key.cluster);
      });
      context.on.clusterChange((cluster) => {
        for (const deployment of deployments.list(cluster)) controller.enqueue({ cluster, name: deployment.metadata.name ?? '' });
      });
      for (const key of deployments.keys()) controller.enqueue(key);
      return controller;
    },
  };
}
