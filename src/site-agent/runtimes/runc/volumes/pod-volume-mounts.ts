import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import type { ClusterObjects } from '../../../placed-object-cache.js';
import { ContainerConfigError } from '../containers/container-env.js';
import type { BindMount } from '../containers/container-spec.js';
import { podResolvConfFile } from '../sandbox/pod-dns-files.js';
import type { RuncSiteParts } from '../pod-parts.js';
import { claimFolder } from './claim-folder.js';
import { recordClaimFolders } from './claim-folder-use.js';
import { containerBinds } from './container-binds.js';
import { volumeContents } from './volume-contents.js';
import { volumeDir, volumeKind } from './volume-kind.js';
import type { ConfigMapObject, SecretObject, VolumeSources } from './volume-types.js';

/**
 * Sets up (or refreshes: configMap and secret updates propagate so) every volume of `pod` in
 * its folder; the host folder of each, by volume name. The claim folders it uses are recorded
 * in the pod's folder first (the site never removes them while the pod's traces exist).
 * Throws the first volume's failure.
 */
export async function setUpPodVolumes(site: RuncSiteParts, objects: ClusterObjects, pod: KubeObject, podDir: string, namespace: string): Promise<Map<string, string>> {
  const layout = { podDir, pvRoot: site.pvRoot, claimFolder: (claimName: string) => claimFolder(claimName, objects.claim(namespace, claimName), site.name) };
  const sources: VolumeSources = {
    configMap: (ns, name) => Promise.resolve(objects.configMap(ns, name) as ConfigMapObject | undefined),
    secret: (ns, name) => Promise.resolve(objects.secret(ns, name) as SecretObject | undefined),
    nodeAllocatable: site.allocatable,
  };
  const volumes = ((pod['spec'] ?? {}) as PodSpec).volumes ?? [];
  const dirs = new Map(volumes.map((volume) => [volume.name ?? '', volumeDir(layout, volume)]));
  const claimDirs = volumes.filter((volume) => volumeKind(volume) === 'persistentVolumeClaim').map((volume) => dirs.get(volume.name ?? '') ?? '');
  await recordClaimFolders(podDir, claimDirs.map((dir) => dir.slice(site.pvRoot.length + 1)));
  for (const volume of volumes) await site.volumes.setUpVolume(dirs.get(volume.name ?? '') ?? '', volume, await volumeContents(pod, volume, sources));
  return dirs;
}

/** A container's volume mounts as binds, after the pod's hosts and resolv.conf files; a mount that cannot be made is a config error. */
export async function containerMounts(pod: KubeObject, container: Container, podDir: string, volumeDirs: ReadonlyMap<string, string>): Promise<BindMount[]> {
  const hosts: BindMount = { source: join(podDir, 'etc-hosts'), destination: '/etc/hosts', readOnly: true };
  const resolv: BindMount[] = existsSync(podResolvConfFile(podDir)) ? [{ source: podResolvConfFile(podDir), destination: '/etc/resolv.conf', readOnly: true }] : [];
  try {
    return [hosts, ...resolv, ...(await containerBinds(pod, container, volumeDirs))];
  } catch (error) {
    throw new ContainerConfigError(error instanceof Error ? error.message : String(error));
  }
}
