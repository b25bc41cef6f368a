import type { PodSpec } from '../../api/pod-spec-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { untoleratedTaintReason } from '../controller-kit/taints.js';
import { bytes, cpuMillis, formatCpu, formatMemory, type Resources } from './pod-resources.js';

/** What one node offers and already carries. */
export interface NodeUsage {
  readonly cpuMillis: number;
  readonly memoryBytes: number;
  readonly pods: number;
}

/** A node's allocatable resources (capacity when allocatable is absent; kubelet's 110 pods when neither says). */
function allocatableOf(node: KubeObject): NodeUsage {
  const status = (node.status ?? {}) as { allocatable?: Record<string, string | number>; capacity?: Record<string, string | number> };
  const list = status.allocatable ?? status.capacity ?? {};
  const pods = list.pods;
  return { cpuMillis: cpuMillis(list.cpu), memoryBytes: bytes(list.memory), pods: pods === undefined ? 110 : bytes(pods) };
}

/** Node condition Ready is True. */
function isNodeReady(node: KubeObject): boolean {
  const conditions = ((node.status ?? {}) as { conditions?: Array<{ type?: string; status?: string }> }).conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * Why `pod` cannot run on `node` (kube's filter reasons), empty when it fits: the node must
 * be schedulable, carry no NoSchedule or NoExecute taint the pod does not tolerate (an offline
 * site's Nodes carry `node.kubernetes.io/unreachable`), be Ready, carry the pod's nodeSelector
 * labels, and have the pod's requests and one pod slot free after what is already bound there.
 */
export function unfitReasons(node: KubeObject, pod: KubeObject, requests: Resources, used: NodeUsage): string[] {
  if ((node.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true) return ['node(s) were unschedulable'];
  const taint = untoleratedTaintReason(node, specOf<PodSpec>(pod).tolerations ?? []);
  if (taint !== undefined) return [taint];
  if (!isNodeReady(node)) return ['node(s) were not ready'];
  const selector = specOf<PodSpec>(pod).nodeSelector ?? {};
  const labels = node.metadata.labels ?? {};
  if (Object.entries(selector).some(([k, v]) => labels[k] !== v)) return ["node(s) didn't match node selector"];
  const free = allocatableOf(node);
  const reasons: string[] = [];
  if (used.pods + 1 > free.pods) reasons.push('Insufficient pods');
  if (requests.cpuMillis > 0 && used.cpuMillis + requests.cpuMillis > free.cpuMillis) reasons.push('Insufficient cpu');
  if (requests.memoryBytes > 0 && used.memoryBytes + requests.memoryBytes > free.memoryBytes) reasons.push('Insufficient memory');
  return reasons;
}

/** kube's FitError message: `0/3 nodes are available: 1 Insufficient memory, 2 Insufficient cpu.` */
export function fitErrorMessage(nodeCount: number, reasons: readonly string[]): string {
  if (nodeCount === 0) return 'no nodes available to schedule pods';
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const histogram = [...counts].map(([reason, count]) => `${count} ${reason}`).sort();
  return `0/${nodeCount} nodes are available: ${histogram.join(', ')}.`;
}

/** The message of a pod refused by the per-vK8s quota of a regional-edge site. */
export function quotaMessage(vk8s: string, site: string, quota: Resources, used: Resources, pod: Resources): string {
  const parts: string[] = [];
  if (used.cpuMillis + pod.cpuMillis > quota.cpuMillis) parts.push(`cpu: the pod's limits need ${formatCpu(pod.cpuMillis)}, ${formatCpu(used.cpuMillis)} of ${formatCpu(quota.cpuMillis)} in use`);
  if (used.memoryBytes + pod.memoryBytes > quota.memoryBytes) parts.push(`memory: the pod's limits need ${formatMemory(pod.memoryBytes)}, ${formatMemory(used.memoryBytes)} of ${formatMemory(quota.memoryBytes)} in use`);
  return `the quota of virtual_k8s ${vk8s} on site ${site} is reached (${parts.join('; ')})`;
}

/** Whether `pod` (its limits) fits what is left of a quota. */
export function fitsQuota(quota: Resources, used: Resources, pod: Resources): boolean {
  return used.cpuMillis + pod.cpuMillis <= quota.cpuMillis && used.memoryBytes + pod.memoryBytes <= quota.memoryBytes;
}

/** Of the nodes that fit, the least requested one (most free CPU and memory, as fractions); ties by name. */
export function leastRequested(candidates: ReadonlyArray<{ readonly node: KubeObject; readonly used: NodeUsage }>, requests: Resources): KubeObject | undefined {
  let best: { node: KubeObject; score: number } | undefined;
  for (const { node, used } of candidates) {
    const free = allocatableOf(node);
    const fraction = (capacity: number, taken: number): number => (capacity <= 0 ? 0 : (capacity - taken) / capacity);
    const score = fraction(free.cpuMillis, used.cpuMillis + requests.cpuMillis) + fraction(free.memoryBytes, used.memoryBytes + requests.memoryBytes);
    if (best === undefined || score > best.score || (score === best.score && (node.metadata.name ?? '') < (best.node.metadata.name ?? ''))) best = { node, score };
  }
  return best?.node;
}
