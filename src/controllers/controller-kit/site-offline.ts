import type { KubeObject } from '../../apimachinery/object.js';
import { taintsOf, UNREACHABLE_TAINT_KEY } from './taints.js';

interface ReadyCondition {
  readonly type?: string;
  readonly lastTransitionTime?: string;
}

/**
 * Since when a site is offline, from its Nodes as the node lifecycle controller leaves them
 * (site-plane/site-lifecycle.ts): a site whose every Node carries the
 * `node.kubernetes.io/unreachable` taint is offline since the last of them went Unknown (the
 * Ready condition's `lastTransitionTime`, else the taint's `timeAdded`). Undefined for a site
 * with a reachable Node, or with no Nodes (not registered yet: nothing is known of it). Pure.
 */
export function siteOfflineSince(nodes: readonly KubeObject[]): string | undefined {
  if (nodes.length === 0) return undefined;
  let since = '';
  for (const node of nodes) {
    const taint = taintsOf(node).find((t) => t.key === UNREACHABLE_TAINT_KEY && t.effect === 'NoExecute') ?? taintsOf(node).find((t) => t.key === UNREACHABLE_TAINT_KEY);
    if (taint === undefined) return undefined;
    const ready = ((node.status as { conditions?: ReadyCondition[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready');
    const at = ready?.lastTransitionTime ?? taint.timeAdded ?? '';
    if (at > since) since = at;
  }
  return since;
}
