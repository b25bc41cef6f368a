import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Container, PodSpec, ResourceList } from '../../../../api/pod-spec-types.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import type { ClusterObjects } from '../../../placed-object-cache.js';
import type { BindMount } from '../oci/index.js';
import { claimFolder } from './claim-folder.js';
import { recordClaimFolders } from './claim-folder-use.js';
import { containerBinds } from './container-binds.js';
import type { MountCommand } from './mount-command.js';
import { SubPathBinds } from './sub-path-binds.js';
import { volumeContents } from './volume-contents.js';
import { VolumeError } from './volume-error.js';
import { volumeDir, volumeKind } from './volume-kind.js';
import { VolumeSetup } from './volume-setup.js';
import type { ConfigMapObject, SecretObject, VolumeSources } from './volume-types.js';

export interface PodVolumesOptions {
  readonly site: string;
  /** util-linux mount and umount: tmpfs volumes, subPath binds. */
  readonly mounts: MountCommand;
  /** The folder of the site's persistent volumes (`pvc-<claim uid>` folders). */
  readonly pvRoot: string;
  /** The node's allocatable resources (downward API limits of containers without one). */
  readonly allocatable: ResourceList;
}

/** A container's volume mount that cannot be made (kubelet's CreateContainerConfigError); `detail` (host paths) is for the agent's log only. */
export class VolumeMountError extends Error {
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

/**
 * The volumes of a runc site's pods, as kubelet's volume manager: set up (and refreshed: how
 * configMap, secret and downward API updates propagate) in the pod's folder before its
 * containers start, bound into each container by its volume mounts, torn down with the pod.
 */
export class PodVolumes {
  private readonly setup: VolumeSetup;
  private readonly subPaths: SubPathBinds;

  constructor(private readonly options: PodVolumesOptions) {
    this.setup = new VolumeSetup(options.mounts);
    this.subPaths = new SubPathBinds(options.mounts);
  }

  /**
   * Sets up every volume of `pod` in `podDir`; the host folder of each, by volume name. The
   * claim folders it uses are recorded in the pod's folder first (the site never removes them
   * while the pod's traces exist). Throws the first volume's failure.
   */
  async setUp(pod: KubeObject, objects: ClusterObjects, podDir: string, namespace: string): Promise<Map<string, string>> {
    const { pvRoot, site, allocatable } = this.options;
    const { setup } = this;
    const layout = { podDir, pvRoot, claimFolder: (claimName: string) => claimFolder(claimName, objects.claim(namespace, claimName), site) };
    const sources: VolumeSources = {
      configMap: (ns, name) => Promise.resolve(objects.configMap(ns, name) as ConfigMapObject | undefined),
      secret: (ns, name) => Promise.resolve(objects.secret(ns, name) as SecretObject | undefined),
      nodeAllocatable: allocatable,
    };
    const volumes = ((pod['spec'] ?? {}) as PodSpec).volumes ?? [];
    const dirs = new Map(volumes.map((volume) => [volume.name ?? '', volumeDir(layout, volume)]));
    const claimDirs = volumes.filter((volume) => volumeKind(volume) === 'persistentVolumeClaim').map((volume) => dirs.get(volume.name ?? '') ?? '');
    await recordClaimFolders(podDir, claimDirs.map((dir) => dir.slice(pvRoot.length + 1)));
    for (const volume of volumes) await setup.setUpVolume(dirs.get(volume.name ?? '') ?? '', volume, await volumeContents(pod, volume, sources));
    return dirs;
  }

  /**
   * A container's binds: the pod's hosts file and resolv.conf (`resolvConf`, when the pod has
   * one), then its volume mounts, each subPath bound anew in the pod's folder by descriptor
   * (SubPathBinds); a mount that cannot be made throws {@link VolumeMountError}.
   */
  async mounts(pod: KubeObject, container: Container, podDir: string, volumeDirs: ReadonlyMap<string, string>, resolvConf: string): Promise<BindMount[]> {
    const hosts: BindMount = { source: join(podDir, 'etc-hosts'), destination: '/etc/hosts', readOnly: true };
    const resolv: BindMount[] = existsSync(resolvConf) ? [{ source: resolvConf, destination: '/etc/resolv.conf', readOnly: true }] : [];
    try {
      return [hosts, ...resolv, ...(await containerBinds(pod, container, volumeDirs, (mount) => this.subPaths.bind(podDir, mount)))];
    } catch (error) {
      throw new VolumeMountError(error instanceof Error ? error.message : String(error), error instanceof VolumeError ? error.detail : undefined);
    }
  }

  /** Unmounts and removes the pod's subPath binds, then every volume of the pod in `podDir` (idempotent). */
  async tearDown(podDir: string): Promise<void> {
    await this.subPaths.unbindPod(podDir);
    await this.setup.tearDownPodVolumes(podDir);
  }
}
