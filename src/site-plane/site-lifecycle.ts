import type { KubeObject } from '../apimachinery/object.js';
import type { SiteState } from '../controllers/placement/site-inventory.js';
import { healthyConditions, type NodeCondition } from './site-node.js';

const NODE_STATUS_UNKNOWN_REASON = 'NodeStatusUnknown';
const NODE_STATUS_UNKNOWN_MESSAGE = 'Kubelet stopped posting node status.';
const UNREACHABLE_TAINT = 'node.kubernetes.io/unreachable';
const NODE_CONDITION_TYPES = ['MemoryPressure', 'DiskPressure', 'PIDPressure', 'Ready'];

interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

/**
 * Pure: the state a site should be in given whether its lease key exists (its agent
 * heartbeats). ONLINE ↔ FAILED follow the lease; a site waiting for registration goes ONLINE
 * once it heartbeats. States set by operators (PROVISIONING, UPGRADING, STANDBY,
 * DECOMMISSIONING) are left alone. Undefined: no change.
 */
export function nextSiteState(current: SiteState | undefined, heartbeating: boolean): SiteState | undefined {
  switch (current) {
    case undefined:
    case 'WAITING_FOR_REGISTRATION':
      return heartbeating ? 'ONLINE' : undefined;
    case 'ONLINE':
      return heartbeating ? undefined : 'FAILED';
    case 'FAILED':
      return heartbeating ? 'ONLINE' : undefined;
    case 'PROVISIONING':
    case 'UPGRADING':
    case 'STANDBY':
    case 'DECOMMISSIONING':
      return undefined;
  }
}

/** What the node lifecycle controller may conclude of a site's heartbeats, and when to look again. */
export type ObservedHealth = { readonly heartbeating: boolean } | { readonly recheckAfterMs: number };

/**
 * Pure: kube-controller-manager's node-monitor-grace-period counted from the controller's
 * start. A site with a lease key heartbeats; one without is lost only once the grace period
 * has passed since the controller started, since before that its silence may be the control
 * plane's own downtime (the lease key may even be missing from a store that was down): until
 * then, no conclusion, and a look again when the grace period ends.
 */
export function observedHealth(hasLease: boolean, observingSinceMs: number, nowMs: number, graceMs: number): ObservedHealth {
  if (hasLease) return { heartbeating: true };
  const waited = nowMs - observingSinceMs;
  return waited >= graceMs ? { heartbeating: false } : { recheckAfterMs: graceMs - waited };
}

const conditionsOf = (node: KubeObject): NodeCondition[] => ((node['status'] as { conditions?: NodeCondition[] } | undefined)?.conditions ?? []);

/** The status of a Node's Ready condition ('Unknown' without one). */
export function nodeReadyStatus(node: KubeObject): NodeCondition['status'] {
  return conditionsOf(node).find((c) => c.type === 'Ready')?.status ?? 'Unknown';
}

/**
 * Pure: the Node as kube-controller-manager's node lifecycle controller and kubelet leave it
 * when its site stops or resumes heartbeating; undefined when it already is so.
 * - Lost: every kubelet condition Unknown (`NodeStatusUnknown`, "Kubelet stopped posting
 *   node status."), transition time now, heartbeat time kept; taints
 *   `node.kubernetes.io/unreachable` NoSchedule and NoExecute (with timeAdded).
 * - Back: kubelet's healthy conditions, heartbeat now; the unreachable taints removed.
 */
export function nodeWithReachability(node: KubeObject, reachable: boolean, now: string): KubeObject | undefined {
  const ready = nodeReadyStatus(node);
  if (reachable ? ready === 'True' : ready === 'Unknown') return undefined;
  const status = (node['status'] ?? {}) as Record<string, unknown>;
  const spec = (node['spec'] ?? {}) as { taints?: Taint[] };
  const others = (spec.taints ?? []).filter((t) => t.key !== UNREACHABLE_TAINT);
  let conditions: NodeCondition[];
  let taints: Taint[];
  if (reachable) {
    const previous = new Map(conditionsOf(node).map((c) => [c.type, c]));
    conditions = healthyConditions(now).map((c) => (previous.get(c.type)?.status === c.status ? { ...c, lastTransitionTime: previous.get(c.type)?.lastTransitionTime ?? now } : c));
    taints = others;
  } else {
    const current = new Map(conditionsOf(node).map((c) => [c.type, c]));
    conditions = NODE_CONDITION_TYPES.map((type) => {
      const was = current.get(type);
      return {
        type,
        status: 'Unknown' as const,
        ...(was?.lastHeartbeatTime === undefined ? {} : { lastHeartbeatTime: was.lastHeartbeatTime }),
        lastTransitionTime: was?.status === 'Unknown' ? (was.lastTransitionTime ?? now) : now,
        reason: NODE_STATUS_UNKNOWN_REASON,
        message: NODE_STATUS_UNKNOWN_MESSAGE,
      };
    });
    taints = [...others, { key: UNREACHABLE_TAINT, effect: 'NoSchedule' }, { key: UNREACHABLE_TAINT, effect: 'NoExecute', timeAdded: now }];
  }
  const { taints: _old, ...restSpec } = spec;
  return { ...node, spec: taints.length === 0 ? restSpec : { ...restSpec, taints }, status: { ...status, conditions } };
}

interface PodCondition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/**
 * Pure: the pod's status with Ready and ContainersReady False (kube's MarkPodsNotReady for a
 * node that stopped reporting), or undefined when both already are False or the pod is
 * finished (Succeeded/Failed pods keep their status).
 */
export function podStatusNotReady(pod: KubeObject, now: string): Record<string, unknown> | undefined {
  const status = (pod['status'] ?? {}) as { phase?: string; conditions?: PodCondition[] };
  if (status.phase === 'Succeeded' || status.phase === 'Failed') return undefined;
  const conditions = status.conditions ?? [];
  const targets = ['Ready', 'ContainersReady'];
  if (targets.every((type) => conditions.find((c) => c.type === type)?.status === 'False')) return undefined;
  const next = conditions.map((c) => (targets.includes(c.type) && c.status !== 'False' ? { ...c, status: 'False', lastTransitionTime: now } : c));
  for (const type of targets) if (!next.some((c) => c.type === type)) next.push({ type, status: 'False', lastProbeTime: null, lastTransitionTime: now });
  return { ...status, conditions: next };
}
