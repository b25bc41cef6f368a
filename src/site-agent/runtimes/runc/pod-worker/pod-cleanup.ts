import { join } from 'node:path';
import { podContainerId } from '../containers/index.js';
import { unmountAllUnder } from '../images/index.js';
import { sidecarRunDir } from '../sidecar/index.js';
import type { RuncSite } from './pod-worker-deps.js';
import { readSavedPod } from './runc-pod-state.js';

/**
 * kubelet's SyncTerminatedPod, and the clean-up of a pod no worker owns: removes everything
 * the pod left on its site whatever state it is in — its containers (those its saved state
 * names, and any runc container with its id prefix), their roots, the tmpfs volumes and the
 * sidecar's folder, the sandbox (infra, namespace, veth, cgroups, folder) and its address.
 */
export async function removePodTraces(site: RuncSite, uid: string): Promise<void> {
  const dir = site.sandboxes.podDir(uid);
  const saved = await readSavedPod(dir);
  const prefix = podContainerId(uid, '');
  const infra = podContainerId(uid, 'infra');
  const { runc } = site.containers;
  const listed = (await runc.list().catch(() => [])).map((c) => c.id).filter((id) => id.startsWith(prefix) && id !== infra);
  for (const id of new Set([...Object.values(saved?.instances ?? {}).map((i) => i.id), ...listed])) await runc.delete(id, true).catch(() => undefined);
  await unmountAllUnder(join(dir, 'containers')).catch(() => undefined);
  await site.volumes.tearDown(dir).catch(() => undefined);
  await site.sidecar.release(sidecarRunDir(dir)).catch(() => undefined);
  await site.sandboxes.remove(uid);
}
