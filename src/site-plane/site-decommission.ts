import { StatusError } from '../apimachinery/errors/status-error.js';
import type { Logger } from '../observability/logger.js';
import type { GenericStore } from '../registry/generic-store.js';
import { isStoreError } from '../store/errors.js';
import { guaranteedUpdate } from '../store/guaranteed-update.js';
import type { Store } from '../store/types.js';
import type { AgentDirectory } from './agent-directory.js';
import type { PodsBySite } from './pods-by-site.js';
import { agentKey, claimKey, leaseKey, type AgentRecord, type SiteClaim } from './site-keys.js';
import type { SiteNodeStore } from './site-node-store.js';

export interface SiteDecommissionDependencies {
  readonly store: Store;
  readonly agents: AgentDirectory;
  readonly nodes: SiteNodeStore;
  readonly pods: GenericStore;
  readonly podsBySite: PodsBySite;
  readonly logger: Logger;
}

/** The field manager of the pod deletions (kube's pod garbage collector). */
const POD_GC_MANAGER = 'pod-garbage-collector';

/**
 * Takes a site whose config object was deleted out of the platform, in an order that is safe
 * to repeat after a failure part-way: its agent stops acting for it (the site leaves the
 * agent's record, so heartbeats and the bound-pod watch no longer cover it), its lease key
 * and Nodes are deleted, the pods bound to it are deleted at once — kube's pod garbage
 * collector does this for pods on a Node that no longer exists: no kubelet will ever confirm
 * their end — and last its claim, which frees the name for a new registration.
 */
export async function decommissionSite(deps: SiteDecommissionDependencies, site: string, claim: SiteClaim): Promise<void> {
  const record = await guaranteedUpdate(deps.store, agentKey(claim.agent), (current) => {
    // guaranteedUpdate throws KeyNotFound itself when the record is gone.
    const agent = JSON.parse(current?.value ?? '{"sites":[]}') as AgentRecord;
    return agent.sites.includes(site) ? JSON.stringify({ ...agent, sites: agent.sites.filter((s) => s !== site) }) : (current?.value ?? '');
  }).catch((error: unknown) => {
    if (isStoreError(error, 'KeyNotFound')) return undefined;
    throw error;
  });
  if (record !== undefined) deps.agents.observe(record);
  await deleteIfPresent(deps.store, leaseKey(site));
  await deps.nodes.removeAll(claim.tenant, site);
  let pods = 0;
  for (const { key } of deps.podsBySite.podsOf(site)) {
    try {
      await deps.pods.delete({ cluster: key.cluster, dryRun: false, fieldManager: POD_GC_MANAGER }, key.name, { gracePeriodSeconds: 0 });
      pods++;
    } catch (error) {
      if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
    }
  }
  await deleteIfPresent(deps.store, claimKey(site));
  deps.logger.info({ site, agent: claim.agent, pods }, 'site decommissioned: its object was deleted');
}

async function deleteIfPresent(store: Store, key: string): Promise<void> {
  await store.delete(key).catch((error: unknown) => {
    if (!isStoreError(error, 'KeyNotFound')) throw error;
  });
}
