import { ConfigError } from '../../config/errors.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../../config/kinds/index.js';
import type { ObjectRegistry } from '../../config/registry.js';
import type { ClusterStatusWriter } from './cluster-site-status-controller.js';
import { statusWithSiteSummary } from './site-status-summary.js';

/** The breakdown written into the cluster's virtual_k8s object status through the config registry. */
export function virtualK8sStatusWriter(registry: Pick<ObjectRegistry, 'updateStatus'>): ClusterStatusWriter {
  const kind = NAMESPACED_KINDS.get('virtual_k8s') as ConfigKind;
  return {
    write: async (cluster, summary) => {
      try {
        await registry.updateStatus({ tenant: cluster.tenant, kind, namespace: cluster.namespace }, cluster.name, (object) => statusWithSiteSummary(object.status, summary));
      } catch (error) {
        // The virtual cluster was deleted: its pods go with it, nothing to report.
        if (error instanceof ConfigError && error.code === 'NotFound') return;
        throw error;
      }
    },
  };
}
