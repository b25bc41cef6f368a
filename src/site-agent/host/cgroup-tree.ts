import { readdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';

const CGROUP_ROOT = '/sys/fs/cgroup';

/** The mounted cgroup hierarchies: the v1 controllers and, on hybrid hosts, v2's `unified`; or the root itself on a v2-only host. */
async function hierarchies(root: string): Promise<string[]> {
  const entries = await readdir(root).catch(() => [] as string[]);
  if (entries.includes('cgroup.controllers')) return [root];
  return entries.map((entry) => join(root, entry));
}

/**
 * Removes an emptied cgroup (a pod's, after its last container was deleted) from every
 * hierarchy: runc made it in each one. A cgroup that still has processes stays (EBUSY) and
 * is reported; one that is already gone is fine.
 */
export async function removeCgroup(path: string, root = CGROUP_ROOT): Promise<string[]> {
  const busy: string[] = [];
  for (const hierarchy of await hierarchies(root)) {
    const dir = join(hierarchy, path);
    try {
      await rmdir(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EBUSY' || code === 'ENOTEMPTY') busy.push(dir);
      else if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
  }
  return busy;
}

/** Whether any hierarchy still holds the cgroup (for tests that check nothing is left behind). */
export async function cgroupExists(path: string, root = CGROUP_ROOT): Promise<boolean> {
  for (const hierarchy of await hierarchies(root)) {
    if ((await readdir(join(hierarchy, path)).catch(() => undefined)) !== undefined) return true;
  }
  return false;
}
