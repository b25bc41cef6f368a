import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../../observability/logger.js';
import { isSiteVolumeFolder, siteVolumeFolder } from '../../../../site-api/site-volume-folder.js';
import type { PlacedObjects } from '../../../site-api-client.js';
import { claimFoldersInUse } from './claim-folder-use.js';
import { mountsUnder, readMountTable } from '../../../host/index.js';

/** What one sweep of a site's claim folders saw. */
export interface SweepView {
  /** The claim folders under the site's root, read before the claims were listed. */
  readonly present: readonly string[];
  /** The folders of the claims the control plane places on the site (a complete list). */
  readonly placed: ReadonlySet<string>;
  /** The folders some pod of the site records using. */
  readonly inUse: ReadonlySet<string>;
  /** The previous sweep's candidates. */
  readonly candidates: ReadonlySet<string>;
}

/**
 * Pure: the folders to remove now and the candidates for the next sweep. A folder is a
 * candidate when no claim placed on the site holds it and no pod of the site uses it; it is
 * removed only when it was a candidate in the previous sweep too (an agent that just started
 * removes nothing, and a claim seen missing once — placement changing under it — is not
 * enough).
 */
export function sweepDecision(view: SweepView): { readonly remove: string[]; readonly candidates: Set<string> } {
  const candidates = new Set(view.present.filter((folder) => isSiteVolumeFolder(folder) && !view.placed.has(folder) && !view.inUse.has(folder)));
  return { remove: [...candidates].filter((folder) => view.candidates.has(folder)).sort(), candidates };
}

/** A runc site as the sweep sees it. */
export interface SweptSite {
  readonly name: string;
  readonly pvRoot: string;
  /** The folder of the site's pods (each pod's record of its claim folders is in its own). */
  readonly podsDir: string;
}

/**
 * Removes the folders of claims that are gone (Delete reclaim policy, the site's side): each
 * sweep reads a site's folders, then the claims placed on the agent's sites from the site API
 * (one complete list; a failed read sweeps nothing), then the pods' records, and removes the
 * folders {@link sweepDecision} gives, unless something is mounted below them.
 */
export class ClaimFolderSweeper {
  private readonly candidates = new Map<string, Set<string>>();

  constructor(
    private readonly sites: readonly SweptSite[],
    private readonly listClaims: () => Promise<PlacedObjects>,
    private readonly logger: Logger,
  ) {}

  /** One sweep of every site; the folders removed. */
  async sweep(): Promise<string[]> {
    const present = new Map<string, string[]>();
    for (const site of this.sites) present.set(site.name, await readdir(site.pvRoot).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error))));
    const claims = await this.listClaims();
    const removed: string[] = [];
    for (const site of this.sites) {
      const placed = new Set(claims.items.filter((item) => item.sites.includes(site.name)).map((item) => siteVolumeFolder(item.object.metadata.uid ?? '')));
      const inUse = await claimFoldersInUse(site.podsDir);
      const decision = sweepDecision({ present: present.get(site.name) ?? [], placed, inUse, candidates: this.candidates.get(site.name) ?? new Set() });
      this.candidates.set(site.name, decision.candidates);
      for (const folder of decision.remove) {
        const dir = join(site.pvRoot, folder);
        if (mountsUnder(await readMountTable(), dir).length > 0) {
          this.logger.warn({ site: site.name, folder }, 'a gone claim\'s folder has a mount below it: kept');
          continue;
        }
        await rm(dir, { recursive: true, force: true });
        decision.candidates.delete(folder);
        removed.push(join(site.name, folder));
        this.logger.info({ site: site.name, folder }, 'removed the folder of a claim that is gone');
      }
    }
    return removed;
  }
}
