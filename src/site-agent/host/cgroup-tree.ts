import { mkdir, readdir, readFile, rmdir, writeFile } from 'node:fs/promises';
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

/**
 * Caps the processes of a cgroup and everything under it (`pids.max`), making the cgroup in
 * the pids hierarchy if need be: a v1 `pids` controller's folder, or on a v2-only host the
 * cgroup itself with `+pids` delegated down from the root. runc makes the containers' cgroups
 * below it and never touches it, so the cap holds for all of them together.
 */
export async function limitPids(path: string, max: number, root = CGROUP_ROOT): Promise<void> {
  const unified = (await readdir(root).catch(() => [] as string[])).includes('cgroup.controllers');
  const dir = unified ? join(root, path) : join(root, 'pids', path);
  if (unified) {
    let parent = root;
    for (const part of path.split('/').filter((p) => p !== '')) {
      await writeFile(join(parent, 'cgroup.subtree_control'), '+pids');
      parent = join(parent, part);
      await mkdir(parent, { recursive: true });
    }
  } else await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'pids.max'), String(max));
}

/** The kernel's `pid_max`: how many process ids the whole host has. */
export async function hostPidMax(): Promise<number> {
  return Number((await readFile('/proc/sys/kernel/pid_max', 'utf8')).trim());
}

/**
 * The most processes a site's pods may hold together: the host's `pid_max` less a reserve for
 * the host and the agent (an eighth, at least 4096), so no tenant can starve them. Pure.
 */
export function sitePidsCeiling(pidMax: number): number {
  return Math.max(1024, pidMax - Math.max(4096, Math.floor(pidMax / 8)));
}
