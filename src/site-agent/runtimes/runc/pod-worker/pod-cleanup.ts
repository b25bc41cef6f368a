import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RuncSiteParts } from '../pod-parts.js';
import { podContainerId } from '../sandbox/pod-sandbox.js';
import { unmount } from '../../../host/tmpfs-mounts.js';
import { unmountAllUnder } from '../images/container-root.js';

/**
 * Removes everything a pod left on its site whatever state it is in: its containers (those
 * its saved state names, and any runc container with its id prefix), the tmpfs volumes and
 * sidecar folder, the sandbox (infra, namespace, veth, cgroups, folder) and its address lease.
 */
export async function removePodTraces(site: RuncSiteParts, uid: string): Promise<void> {
  const dir = site.sandboxes.podDir(uid);
  const saved = await readFile(join(dir, 'pod-state.json'), 'utf8').then(
    (text) => JSON.parse(text) as { instances?: Record<string, { id: string }> },
    () => undefined,
  );
  const prefix = podContainerId(uid, '');
  const infra = podContainerId(uid, 'infra');
  const listed = (await site.containers.list().catch(() => [])).map((c) => c.id).filter((id) => id.startsWith(prefix) && id !== infra);
  for (const id of new Set([...Object.values(saved?.instances ?? {}).map((i) => i.id), ...listed])) await site.containers.delete(id, true).catch(() => undefined);
  await unmountAllUnder(join(dir, 'containers')).catch(() => undefined);
  await site.volumes.tearDownPodVolumes(dir).catch(() => undefined);
  await unmount(join(dir, 'sidecar-run')).catch(() => undefined);
  await site.sandboxes.remove(uid);
  await site.leases.release(uid);
}
