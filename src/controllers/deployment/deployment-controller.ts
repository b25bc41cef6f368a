import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { Expectations } from '../runtime/expectations.js';
import { formatObjectKey } from '../runtime/object-key.js';
import { controllerRefOf, ownerRefOfKind } from '../runtime/owner-references.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { deploymentReconciler } from './deployment-reconciler.js';
import { onlyStatusChanged } from './status-only-change.js';
import { siteOfflineSince } from '../controller-kit/site-offline.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';

/**
 * The Deployment controller (see deploymentReconciler). A Deployment is synced when it
 * changes, when one of its ReplicaSets changes, when a pod of one of its ReplicaSets goes
 * (Recreate waits for that), when its cluster's placement inputs change, and when a site of
 * one of its ReplicaSets goes offline or comes back. Syncs caused by
 * ReplicaSets and pods wait `replicaSetEventDelayMs` (default 100 ms) — or four times the
 * Deployment's last sync, at most 5 s — so the changes of a Deployment's many site
 * ReplicaSets are looked at together.
 */
export function deploymentController(options: { workers?: number; replicaSetEventDelayMs?: number } = {}): ControllerStarter {
  const delay = options.replicaSetEventDelayMs ?? 100;
  return {
    name: 'deployment',
    start: (context) => {
      const { deployments, replicaSets, pods } = context.informers;
      const expectations = new Expectations();
      const reconcile = deploymentReconciler(context, expectations);
      const lastDuration = new Map<string, number>();
      const controller = startControllerLoop({
        name: 'deployment',
        logger: context.logger,
        metrics: context.metrics,
        workers: context.workers ?? options.workers ?? 4,
        reconcile: async (key, queueKey) => {
          const started = performance.now();
          try {
            return await reconcile(key, queueKey);
          } finally {
            if (deployments.get(key.cluster, key.name) === undefined) lastDuration.delete(queueKey);
            else lastDuration.set(queueKey, performance.now() - started);
          }
        },
      });
      /** Syncs of a Deployment whose sync is slow (thousands of sites) wait longer: four times its last duration, at most 5 s. */
      const delayOf = (key: { cluster: ClusterRef; name: string }): number => Math.min(5000, Math.max(delay, 4 * (lastDuration.get(formatObjectKey(key)) ?? 0)));
      const ownerOf = (rs: KubeObject, cluster: ClusterRef): void => {
        const ref = ownerRefOfKind(rs, 'Deployment');
        if (ref !== undefined) controller.enqueueAfter({ cluster, name: ref.name }, delayOf({ cluster, name: ref.name }));
      };
      // The controller's own status writes come back as updates: they are coalesced like
      // ReplicaSet events, not synced at once (a sync over thousands of sites would loop).
      context.on.informer(deployments, (event) => {
        if (event.type === 'updated' && onlyStatusChanged(event.old, event.object)) controller.enqueueAfter(event.key, delayOf(event.key));
        else controller.enqueue(event.key);
      });
      context.on.informer(replicaSets, (event) => {
        const ref = ownerRefOfKind(event.object, 'Deployment');
        if (event.type === 'added' && ref !== undefined) expectations.creationObserved(formatObjectKey({ cluster: event.key.cluster, name: ref.name }));
        ownerOf(event.object, event.key.cluster);
        if (event.type === 'updated' && ownerRefOfKind(event.old, 'Deployment')?.uid !== ref?.uid) ownerOf(event.old, event.key.cluster);
      });
      context.on.informer(pods, (event) => {
        if (event.type !== 'deleted') return;
        const ref = controllerRefOf(event.object);
        if (ref?.kind !== 'ReplicaSet') return;
        const rs = replicaSets.get(event.key.cluster, ref.name);
        if (rs !== undefined) ownerOf(rs, event.key.cluster);
      });
      context.on.clusterChange((cluster) => controller.enqueueAll(deployments, cluster));
      // A site going offline or coming back: the Deployments with ReplicaSets there are synced (status, SitesOffline, events).
      const offlineBySite = new Map<string, string | undefined>();
      context.on.siteChange((site) => {
        const since = siteOfflineSince(context.sites.nodesOf(site));
        if (offlineBySite.get(site) === since) return;
        offlineBySite.set(site, since);
        for (const key of replicaSets.keys()) {
          const rs = replicaSets.get(key.cluster, key.name);
          if (rs !== undefined && rs.metadata.labels?.[POD_SITE_LABEL] === site) ownerOf(rs, key.cluster);
        }
      });
      controller.enqueueAll(deployments);
      return controller;
    },
  };
}
