import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClusterRef } from '../../../../apimachinery/cluster-ref.js';
import type { IdRange } from '../oci/index.js';
import { blockRange, freeBlock, hostIdsInUse, USER_RANGE_SIZE } from './user-ranges.js';

/** Where the machine's sites claim their user namespace blocks: one file per block, holding `<site netns> <cluster>`. */
const CLAIMS_DIR = '/run/edgeplane/user-ranges';

const clusterKey = (cluster: ClusterRef): string => `${cluster.tenant}/${cluster.namespace}/${cluster.name}`;
const readText = (path: string): Promise<string> => readFile(path, 'utf8').catch(() => '');

/** Removes the machine's claims of a site's blocks (the site is gone). */
export async function releaseUserRangeClaims(siteNetns: string, claimsDir = CLAIMS_DIR): Promise<void> {
  for (const name of await readdir(claimsDir).catch(() => [] as string[])) {
    if ((await readText(join(claimsDir, name))).startsWith(`${siteNetns} `)) await rm(join(claimsDir, name), { force: true });
  }
}

/**
 * The user namespace ids of a site's virtual clusters: one block of 65536 host ids per cluster
 * per site (tenant against tenant, as Docker's userns-remap with a range per tenant), the same
 * for every pod of the cluster on the site so that what they leave in a claim's folder stays
 * theirs. The site's choices are kept in its folder (`user-ranges.json`) and outlive the agent;
 * the machine's sites claim blocks by files created exclusively in /run, so two sites never
 * share a block, and no block overlaps a host account or subordinate range (/etc/passwd,
 * group, subuid, subgid). Calls run one at a time.
 */
export class SiteUserRanges {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly siteDir: string,
    /** The site's network namespace name: the machine-wide name of the site in its claims. */
    private readonly siteNetns: string,
    private readonly claimsDir = CLAIMS_DIR,
    private readonly etc = '/etc',
  ) {}

  /** The cluster's ids on this site: the block it has, else a free one claimed and recorded. */
  rangeFor(cluster: ClusterRef): Promise<IdRange> {
    const next = this.queue.then(() => this.claim(clusterKey(cluster)));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private recordFile(): string {
    return join(this.siteDir, 'user-ranges.json');
  }

  private async claim(key: string): Promise<IdRange> {
    await mkdir(this.claimsDir, { recursive: true, mode: 0o700 });
    const recorded = JSON.parse((await readText(this.recordFile())) || '{}') as Record<string, number>;
    const holder = `${this.siteNetns} ${key}`;
    const known = recorded[key];
    if (known !== undefined) {
      const block = known / USER_RANGE_SIZE;
      if (!(await this.take(block, holder))) throw new Error(`user namespace ids ${known}-${known + USER_RANGE_SIZE - 1} of cluster ${key} are claimed by another site of this machine`);
      return blockRange(block);
    }
    const files = { passwd: await readText(join(this.etc, 'passwd')), group: await readText(join(this.etc, 'group')), subuid: await readText(join(this.etc, 'subuid')), subgid: await readText(join(this.etc, 'subgid')) };
    const inUse = hostIdsInUse(files);
    for (;;) {
      const taken = new Set((await readdir(this.claimsDir)).map(Number).filter(Number.isInteger));
      const block = freeBlock(inUse, taken);
      if (block === undefined) throw new Error('no block of 65536 host ids is free for a user namespace on this machine');
      if (!(await this.take(block, holder))) continue;
      const range = blockRange(block);
      const temporary = `${this.recordFile()}.tmp`;
      await writeFile(temporary, JSON.stringify({ ...recorded, [key]: range.hostId }), { mode: 0o600 });
      await rename(temporary, this.recordFile());
      return range;
    }
  }

  /** Claims `block` for `holder`: true when it is now (or already was) the holder's. */
  private async take(block: number, holder: string): Promise<boolean> {
    const file = join(this.claimsDir, String(block));
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(holder);
      await handle.close();
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return (await readText(file)) === holder;
    }
  }
}
