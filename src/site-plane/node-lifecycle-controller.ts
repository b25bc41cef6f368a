import { startWorkLoop, type ReconcileResult } from '../controllers/runtime/work-loop.js';
import type { WorkQueueOptions } from '../controllers/runtime/work-queue.js';
import { StatusError } from '../apimachinery/errors/status-error.js';
import type { Clock } from '../common/clock.js';
import type { EventRecorder } from '../controllers/events/event-recorder.js';
import type { CachedSiteInventory } from './cached-site-inventory.js';
import type { SiteConfigObjects } from './site-config-objects.js';
import { decommissionSite, type SiteDecommissionDependencies } from './site-decommission.js';
import { nextSiteState, nodeWithReachability, observedHealth, podStatusNotReady } from './site-lifecycle.js';
import { metav1Time } from '../apimachinery/meta-time.js';

export interface NodeLifecycleDependencies extends SiteDecommissionDependencies {
  readonly inventory: CachedSiteInventory;
  readonly objects: SiteConfigObjects;
  readonly clock: Clock;
  /** How long a site may go without a lease key, counted from this controller's start too (node-monitor-grace-period). */
  readonly graceSeconds: number;
  /** Where the `NodeNotReady` events on pods go (none without). */
  readonly events?: EventRecorder;
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

export interface NodeLifecycleController {
  /** Stops taking sites and waits for the reconciles in flight. */
  stop(): Promise<void>;
}

/** The field manager of the controller's pod status writes (kube's is the controller manager's). */
const NODE_CONTROLLER_MANAGER = 'node-controller';
/** kube's MarkPodsNotReady event on each pod it marks (reason, message, component). */
const NODE_NOT_READY_REASON = 'NodeNotReady';
const NODE_NOT_READY_MESSAGE = 'Node is not ready';

/**
 * kube-controller-manager's node lifecycle controller for sites, level-based: a site is
 * reconciled whenever anything the inventory knows of it changes (its lease key above all).
 * Without a lease key (its agent stopped heartbeating for the grace period) the site object
 * goes FAILED, its Nodes' conditions Unknown (NodeStatusUnknown) with unreachable taints, and
 * its pods' Ready and ContainersReady False, each pod marked with a Warning event
 * `NodeNotReady` "Node is not ready" (kube's MarkPodsNotReady), so their Endpoints addresses
 * go not-ready and their workloads stop counting them ready; nothing moves to other sites.
 * With one, ONLINE and Ready again (pods are left
 * to the agent, which reposts their status, as kubelet does). Health is timed only from what
 * the controller observes: no site is lost before the grace period has passed since it
 * started (observedHealth), so a control-plane restart never fails a site. A site whose config object is
 * deleted is decommissioned (site-decommission.ts). Every server runs it: its
 * writes are idempotent and conditioned.
 */
export function startNodeLifecycleController(deps: NodeLifecycleDependencies): NodeLifecycleController {
  const startedAtMs = deps.clock.now().getTime();
  const reconcile = async (site: string): Promise<ReconcileResult | void> => {
    const claim = deps.inventory.claimOf(site);
    if (claim === undefined) return deps.inventory.forgetDeletion(site);
    if (deps.inventory.objectDeleted(site)) return decommissionSite(deps, site, claim);
    const observed = observedHealth(deps.inventory.leaseOf(site) !== undefined, startedAtMs, deps.clock.now().getTime(), deps.graceSeconds * 1000);
    if ('recheckAfterMs' in observed) return { requeueAfterMs: observed.recheckAfterMs };
    const { heartbeating } = observed;
    const now = metav1Time(deps.clock.now());
    const object = deps.inventory.objectOf(site);
    const state = object === undefined ? undefined : nextSiteState(deps.inventory.stateOf(site), heartbeating);
    if (object !== undefined && state !== undefined) {
      await deps.objects.setState(object, state);
      deps.logger.info({ site, state }, 'site state changed');
    }
    for (const node of deps.inventory.nodesOf(site)) {
      if (nodeWithReachability(node, heartbeating, now) === undefined) continue;
      await deps.nodes.update(claim.tenant, site, node.metadata.name ?? '', (current) => nodeWithReachability(current, heartbeating, now));
    }
    if (!heartbeating) await markPodsNotReady(deps, site, now);
  };

  const loop = startWorkLoop<string>({ workers: deps.workers ?? 4, reconcile, logger: deps.logger, ...(deps.queue === undefined ? {} : { queue: deps.queue }) });
  deps.inventory.onChange((site) => loop.add(site));
  for (const site of deps.inventory.sites()) loop.add(site);
  return { stop: () => loop.stop() };
}

async function markPodsNotReady(deps: NodeLifecycleDependencies, site: string, now: string): Promise<void> {
  for (const { key, object } of deps.podsBySite.podsOf(site)) {
    if (podStatusNotReady(object, now) === undefined) continue;
    try {
      // Another server may mark it first: only the write that changed the pod tells the event.
      let marked = false;
      const written = await deps.pods.update(
        { cluster: key.cluster, dryRun: false, fieldManager: NODE_CONTROLLER_MANAGER },
        key.name,
        (current) => {
          const status = podStatusNotReady(current, now);
          marked = status !== undefined;
          return { ...current, status: status ?? current['status'] };
        },
        { subresource: 'status', retryOnConflict: true },
      );
      if (marked) deps.events?.record(key.cluster, written, 'Warning', NODE_NOT_READY_REASON, NODE_NOT_READY_MESSAGE, NODE_CONTROLLER_MANAGER);
    } catch (error) {
      if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
    }
  }
}
