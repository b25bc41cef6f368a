import type { KubeObject } from '../../apimachinery/object.js';
import type { SiteShare } from './deployment-status.js';
import { rsViewOf, type RsView } from './replica-set-view.js';
import type { SiteGroup } from './site-groups.js';

/**
 * What a site adds to the Deployment's status: its new and old ReplicaSets as this sync
 * leaves them (`views` overrides the informer's view of ReplicaSets just resized, by name).
 */
export function shareOf(group: SiteGroup, newRS: KubeObject | undefined, oldRSs: readonly KubeObject[], views: ReadonlyMap<string, RsView> = new Map()): SiteShare {
  const view = (rs: KubeObject): RsView => views.get(rs.metadata.name ?? '') ?? rsViewOf(rs);
  return { site: group.site, placed: group.placed !== undefined, ...(newRS === undefined ? {} : { newRS: view(newRS) }), oldRSs: oldRSs.map(view) };
}
