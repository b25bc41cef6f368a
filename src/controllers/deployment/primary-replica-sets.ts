import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import { specOf, type ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { byCreation, rsViewOf } from './replica-set-view.js';
import { templateKey } from './site-groups.js';

/**
 * Which of a Deployment's ReplicaSets it controls (`ownerReferences[].controller: true`); the
 * others name it as owner only. A template revision runs as one ReplicaSet per site, but
 * kubectl's client-side `rollout history` and `rollout undo` read "the Deployment's
 * ReplicaSets" as those it controls and expect one per revision — `undo` would otherwise
 * take a twin of the current revision for the previous one. So per template exactly one
 * ReplicaSet is the controlled "primary": one on a placed site before one being drained, then
 * the first site by name, then the oldest. The garbage collector deletes every one of them
 * with the Deployment all the same (it follows every owner reference).
 */
export function primaryReplicaSets(rss: readonly KubeObject[], placedSites: ReadonlySet<string>): Set<KubeObject> {
  const byTemplate = new Map<string, KubeObject[]>();
  for (const rs of rss) {
    if (rs.metadata.deletionTimestamp !== undefined) continue;
    const key = templateKey(specOf<ReplicaSetSpec>(rs).template);
    const list = byTemplate.get(key);
    if (list === undefined) byTemplate.set(key, [rs]);
    else list.push(rs);
  }
  const primaries = new Set<KubeObject>();
  for (const candidates of byTemplate.values()) {
    const best = candidates.reduce((a, b) => (before(b, a, placedSites) ? b : a));
    primaries.add(best);
  }
  return primaries;
}

function before(a: KubeObject, b: KubeObject, placed: ReadonlySet<string>): boolean {
  const siteA = a.metadata.labels?.[POD_SITE_LABEL] ?? '';
  const siteB = b.metadata.labels?.[POD_SITE_LABEL] ?? '';
  const placedA = placed.has(siteA);
  if (placedA !== placed.has(siteB)) return placedA;
  if (siteA !== siteB) return siteA < siteB;
  return byCreation(rsViewOf(a), rsViewOf(b)) < 0;
}
