import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { termInformer } from '../manager/term-scoped.js';
import { clusterKeyOf } from '../runtime/object-key.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { summarizePodsBySite, type ClusterSiteStatus } from './site-status-summary.js';

/** Where the breakdown goes: the cluster's virtual_k8s object status (the config API). */
export interface ClusterStatusWriter {
  /** Writes `summary` into the cluster's virtual_k8s status; resolves quietly when the object is gone. */
  write(cluster: ClusterRef, summary: ClusterSiteStatus): Promise<void>;
}

export interface ClusterSiteStatusOptions {
  readonly writer: ClusterStatusWriter;
  /** Pod changes within this window make one write per cluster (default 2 s). */
  readonly coalesceMs?: number;
}

/**
 * Keeps each virtual_k8s object's per-site breakdown current: pods, ready, pending and failed
 * per site and summed (the status entry with `per_site`). Keyed by cluster; a pod change
 * queues its cluster after `coalesceMs` (changes in between fold into that one write), and a
 * write happens only when the summary differs from the last one this term wrote. A new
 * leadership term writes every cluster with pods once.
 */
export function clusterSiteStatusController(options: ClusterSiteStatusOptions): ControllerStarter {
  const coalesceMs = options.coalesceMs ?? 2000;
  return {
    name: 'cluster-site-status',
    start: (context) => {
      const pods = termInformer(context, context.informers.pods);
      const written = new Map<string, string>();
      const controller = startControllerLoop({
        name: 'cluster-site-status',
        logger: context.logger,
        metrics: context.metrics,
        workers: context.workers ?? 1,
        reconcile: async (key) => {
          const summary = summarizePodsBySite(pods.list(key.cluster));
          const text = JSON.stringify(summary);
          const id = clusterKeyOf(key.cluster);
          if (written.get(id) === text) return;
          await options.writer.write(key.cluster, summary);
          written.set(id, text);
        },
      });
      const queue = (cluster: ClusterRef): void => controller.enqueueAfter({ cluster, name: cluster.name }, coalesceMs);
      pods.onEvent((event) => queue(event.key.cluster));
      const seen = new Set<string>();
      for (const key of pods.keys()) {
        const id = clusterKeyOf(key.cluster);
        if (seen.has(id)) continue;
        seen.add(id);
        controller.enqueue({ cluster: key.cluster, name: key.cluster.name });
      }
      return controller;
    },
  };
}
