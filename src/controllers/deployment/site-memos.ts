import type { KubeObject } from '../../apimachinery/object.js';
import type { SiteShare } from './deployment-status.js';
import type { SiteGroup } from './site-groups.js';

/** A site whose last sync wrote nothing, and what that sync read. */
export interface SiteMemo {
  /** `<uid>/<generation>` of the Deployment. */
  readonly generation: string;
  readonly revision: number;
  /** The site's ReplicaSet objects as the informer gave them (the new one first). */
  readonly rss: readonly KubeObject[];
  /** What the site added to the status. */
  readonly share: SiteShare;
}

/**
 * Per Deployment and site, the last sync that had nothing to do, and what it read: while the
 * Deployment's generation, the revision and the site's ReplicaSet objects (the informer's,
 * replaced on every change) are the same, the site's sync would decide the same — so a
 * Deployment on thousands of sites only works on the sites whose ReplicaSets changed.
 */
export class SiteMemos {
  private readonly byDeployment = new Map<string, Map<string, SiteMemo>>();

  /** The memos (by site) of the Deployment `queueKey`, rid of the sites not among `groups`. */
  of(queueKey: string, groups: readonly SiteGroup[]): Map<string, SiteMemo> {
    const memos = this.byDeployment.get(queueKey) ?? new Map<string, SiteMemo>();
    this.byDeployment.set(queueKey, memos);
    if (memos.size > groups.length) {
      const present = new Set(groups.map((g) => g.site));
      for (const site of memos.keys()) if (!present.has(site)) memos.delete(site);
    }
    return memos;
  }

  /** The Deployment is gone: drop its memos. */
  forget(queueKey: string): void {
    this.byDeployment.delete(queueKey);
  }
}

/** Whether `memo` was taken from these very inputs (the same ReplicaSet objects, in the same order). */
export function memoHolds(memo: SiteMemo | undefined, generation: string, revision: number, rss: readonly KubeObject[]): memo is SiteMemo {
  return memo !== undefined && memo.generation === generation && memo.revision === revision && sameObjects(memo.rss, rss);
}

function sameObjects(a: readonly KubeObject[], b: readonly KubeObject[]): boolean {
  return a.length === b.length && a.every((object, i) => object === b[i]);
}
