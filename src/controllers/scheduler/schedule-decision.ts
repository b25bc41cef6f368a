import type { KubeObject } from '../../apimachinery/object.js';
import type { NodeAccounting } from './node-accounting.js';
import { fitErrorMessage, fitsQuota, leastRequested, quotaMessage, unfitReasons, type NodeUsage } from './node-fit.js';
import type { Resources } from './pod-resources.js';

export type ScheduleDecision = { readonly node: KubeObject } | { readonly unschedulable: string };

export interface DecisionInput {
  readonly pod: KubeObject;
  readonly requests: Resources;
  readonly limits: Resources;
  readonly site: string;
  /** The pod's cluster as one string (accounting key) and as users name it (`namespace/vk8s`). */
  readonly cluster: string;
  readonly clusterName: string;
  readonly nodes: readonly KubeObject[];
  readonly quota: Resources | undefined;
  readonly accounting: NodeAccounting;
}

/**
 * Where a pod of a site goes: first the site's per-vK8s quota (the limits of the vK8s's
 * pods bound there plus this pod's), then every node of the site by kube's fit rules, the
 * least requested fitting node winning. Otherwise why not, in kube's FitError words.
 */
export function decide(input: DecisionInput): ScheduleDecision {
  const { accounting, requests } = input;
  if (input.quota !== undefined) {
    const used = accounting.quotaUsed(input.site, input.cluster);
    if (!fitsQuota(input.quota, used, input.limits)) return { unschedulable: quotaMessage(input.clusterName, input.site, input.quota, used, input.limits) };
  }
  const fitting: Array<{ node: KubeObject; used: NodeUsage }> = [];
  const reasons: string[] = [];
  for (const node of input.nodes) {
    const used = accounting.usedOn(node.metadata.name ?? '');
    const why = unfitReasons(node, input.pod, requests, used);
    if (why.length === 0) fitting.push({ node, used });
    else reasons.push(...why);
  }
  const best = leastRequested(fitting, requests);
  return best !== undefined ? { node: best } : { unschedulable: fitErrorMessage(input.nodes.length, reasons) };
}
