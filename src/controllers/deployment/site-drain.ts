import type { KubeObject } from '../../apimachinery/object.js';
import type { SiteShare } from './deployment-status.js';
import { deleteReplicaSet, scaleReplicaSet, type WriteTarget } from './replica-set-writes.js';
import { rsViewOf, type RsView } from './replica-set-view.js';
import { shareOf } from './site-share.js';
import type { SiteGroup } from './site-groups.js';

/**
 * A site the Deployment left: scales its ReplicaSets to 0 and deletes those already empty
 * (their pods gone, their status current). Returns the site's share and the ReplicaSets kept.
 */
export async function drainSite(target: WriteTarget, group: SiteGroup, maxReplicas: number): Promise<{ share: SiteShare; kept: KubeObject[] }> {
  const kept: KubeObject[] = [];
  const views = new Map<string, RsView>();
  for (const rs of group.oldRSs) {
    const view = rsViewOf(rs);
    if (view.deleting) continue;
    if (view.specReplicas > 0) {
      await scaleReplicaSet(target, rs, 0, maxReplicas);
      views.set(view.name, { ...view, specReplicas: 0 });
      kept.push(rs);
    } else if (view.statusReplicas === 0 && view.observedGeneration >= view.generation) {
      await deleteReplicaSet(target, rs);
    } else {
      kept.push(rs);
    }
  }
  return { share: shareOf(group, undefined, kept, views), kept };
}
