import type { KubeObject } from '../../apimachinery/object.js';
import { isPodReady } from '../runtime/pod-state.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';

/** One site's share of a virtual cluster's pods. */
interface SitePodCounts {
  pods: number;
  ready: number;
  pending: number;
  failed: number;
}

/**
 * The per-site breakdown a virtual_k8s object's status carries (the entry holding
 * `per_site`): pod counts summed over the cluster and per site, sites in name order.
 */
export interface ClusterSiteStatus {
  readonly pods: number;
  readonly ready: number;
  readonly sites: number;
  readonly per_site: Readonly<Record<string, SitePodCounts>>;
}

/** Pure: the breakdown of `pods` (only pods made for a site — with its label — count). */
export function summarizePodsBySite(pods: Iterable<KubeObject>): ClusterSiteStatus {
  const bySite = new Map<string, SitePodCounts>();
  let total = 0;
  let ready = 0;
  for (const pod of pods) {
    const site = pod.metadata.labels?.[POD_SITE_LABEL];
    if (site === undefined) continue;
    let counts = bySite.get(site);
    if (counts === undefined) bySite.set(site, (counts = { pods: 0, ready: 0, pending: 0, failed: 0 }));
    const phase = (pod['status'] as { phase?: string } | undefined)?.phase ?? 'Pending';
    counts.pods++;
    total++;
    if (isPodReady(pod)) {
      counts.ready++;
      ready++;
    }
    if (phase === 'Pending') counts.pending++;
    if (phase === 'Failed') counts.failed++;
  }
  const names = [...bySite.keys()].sort();
  return { pods: total, ready, sites: names.length, per_site: Object.fromEntries(names.map((n) => [n, bySite.get(n) as SitePodCounts])) };
}

/** The status entry shape: the summary, marked by its `per_site` member. */
function isSiteStatusEntry(entry: Record<string, unknown>): boolean {
  return typeof entry['per_site'] === 'object' && entry['per_site'] !== null;
}

/** Pure: `status` with the breakdown entry replaced (or added last); other entries kept. */
export function statusWithSiteSummary(status: ReadonlyArray<Record<string, unknown>>, summary: ClusterSiteStatus): Array<Record<string, unknown>> {
  const entry = { ...summary };
  const index = status.findIndex(isSiteStatusEntry);
  if (index < 0) return [...status, entry];
  return status.map((e, i) => (i === index ? entry : e));
}
