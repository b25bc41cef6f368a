import type { NodeUsage } from './node-fit.js';
import { NO_RESOURCES, type Resources } from './pod-resources.js';

/** Where a pod is bound and what it holds there. */
export interface BoundPod {
  readonly uid: string;
  readonly node: string;
  readonly site: string;
  /** The pod's cluster as one string (quota is per vK8s and site). */
  readonly cluster: string;
  readonly requests: Resources;
  readonly limits: Resources;
  /** Bound by this scheduler, not yet seen bound in the informer. */
  readonly assumed: boolean;
}

const NO_USAGE: NodeUsage = { cpuMillis: 0, memoryBytes: 0, pods: 0 };

/**
 * The scheduler's memory of bound pods (kube's scheduler cache): requests per node and
 * limits per (site, vK8s), kept from the pods informer — and from the scheduler's own
 * bindings at once ("assumed"), before the informer shows them — so each decision is
 * O(nodes of the site) with no store reads.
 */
export class NodeAccounting {
  private readonly pods = new Map<string, BoundPod>();
  private readonly nodes = new Map<string, NodeUsage>();
  private readonly quotas = new Map<string, Resources>();

  /** Records `pod` (by its queue key) as bound; replaces what was recorded for that key. */
  assign(key: string, pod: BoundPod): void {
    const previous = this.pods.get(key);
    if (previous !== undefined && previous.uid === pod.uid && previous.node === pod.node) {
      if (previous.assumed !== pod.assumed) this.pods.set(key, pod);
      return;
    }
    this.release(key);
    this.pods.set(key, pod);
    this.nodes.set(pod.node, add(this.usedOn(pod.node), pod.requests, 1));
    const quotaKey = quotaKeyOf(pod.site, pod.cluster);
    this.quotas.set(quotaKey, plus(this.quotaUsed(pod.site, pod.cluster), pod.limits, 1));
  }

  /** Forgets the pod of `key`; returns what it held. */
  release(key: string): BoundPod | undefined {
    const pod = this.pods.get(key);
    if (pod === undefined) return undefined;
    this.pods.delete(key);
    this.nodes.set(pod.node, add(this.usedOn(pod.node), pod.requests, -1));
    const quotaKey = quotaKeyOf(pod.site, pod.cluster);
    this.quotas.set(quotaKey, plus(this.quotaUsed(pod.site, pod.cluster), pod.limits, -1));
    return pod;
  }

  get(key: string): BoundPod | undefined {
    return this.pods.get(key);
  }

  usedOn(node: string): NodeUsage {
    return this.nodes.get(node) ?? NO_USAGE;
  }

  /** Limits of the vK8s's pods bound on the site. */
  quotaUsed(site: string, cluster: string): Resources {
    return this.quotas.get(quotaKeyOf(site, cluster)) ?? NO_RESOURCES;
  }
}

function quotaKeyOf(site: string, cluster: string): string {
  return `${site}\u0000${cluster}`;
}

function add(usage: NodeUsage, requests: Resources, sign: 1 | -1): NodeUsage {
  return { cpuMillis: usage.cpuMillis + sign * requests.cpuMillis, memoryBytes: usage.memoryBytes + sign * requests.memoryBytes, pods: usage.pods + sign };
}

function plus(a: Resources, b: Resources, sign: 1 | -1): Resources {
  return { cpuMillis: a.cpuMillis + sign * b.cpuMillis, memoryBytes: a.memoryBytes + sign * b.memoryBytes };
}
