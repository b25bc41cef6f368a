import { readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file in a pod's folder naming the claim folders the pod has used. */
const USE_FILE = 'claim-folders.json';

async function readUse(podDir: string): Promise<string[]> {
  try {
    const parsed = JSON.parse(await readFile(join(podDir, USE_FILE), 'utf8')) as unknown;
    return Array.isArray(parsed) ? parsed.filter((f): f is string => typeof f === 'string') : [];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Records, before the pod mounts them, that the pod uses these claim folders: added to what
 * it used before (a container still runs with an earlier folder bound), written atomically in
 * the pod's folder, so the record lasts as long as the pod's traces do — across agent
 * restarts — and goes with them (pod-cleanup.ts removes the folder).
 */
export async function recordClaimFolders(podDir: string, folders: readonly string[]): Promise<void> {
  if (folders.length === 0) return;
  const used = await readUse(podDir);
  const all = [...new Set([...used, ...folders])].sort();
  if (all.length === used.length) return;
  const temporary = join(podDir, `.${USE_FILE}.tmp`);
  await writeFile(temporary, JSON.stringify(all));
  await rename(temporary, join(podDir, USE_FILE));
}

/** The claim folders some pod of the site (a folder under `podsDir`) has recorded; a record that cannot be read fails the call. */
export async function claimFoldersInUse(podsDir: string): Promise<Set<string>> {
  const inUse = new Set<string>();
  for (const uid of await readdir(podsDir).catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? [] : Promise.reject(error)))) {
    for (const folder of await readUse(join(podsDir, uid))) inUse.add(folder);
  }
  return inUse;
}
