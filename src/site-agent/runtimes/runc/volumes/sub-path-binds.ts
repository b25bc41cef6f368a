import { lstat, mkdir, realpath, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isMountPoint, mountsUnder, readMountTable } from '../../../host/index.js';
import type { MountCommand } from './mount-command.js';
import { openSubPath, type SubPathMount } from './sub-path.js';
import { VolumeError } from './volume-error.js';
import { safeSegment } from './volume-kind.js';

/** The folder of a pod's subPath binds (kubelet's `volume-subpaths`). */
const SUBPATHS_DIR = 'volume-subpaths';
/** Rounds of unmounting before giving up (each uncovers what was mounted below). */
const UNMOUNT_ROUNDS = 8;

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Where a subPath mount is bound on the host, as kubelet lays it out:
 * `<pod>/volume-subpaths/<volume>/<container>/<index of the mount>`. Throws a VolumeError for
 * a volume or container name that is not one folder name.
 */
function subPathTarget(podDir: string, mount: SubPathMount): string {
  for (const name of [mount.volumeName, mount.containerName]) if (!safeSegment(name)) throw new VolumeError(`invalid name "${name}" for a subPath mount`);
  return join(podDir, SUBPATHS_DIR, mount.volumeName, mount.containerName, String(mount.index));
}

/**
 * The subPath mounts of a runc site's containers, bound as kubelet binds them: the subPath is
 * opened by descriptor without following symlinks (see {@link openSubPath}), and while the
 * descriptor is held, `/proc/<agent pid>/fd/<fd>` is bind-mounted at a target in the pod's own
 * folder (which no container can write). runc binds that target into the container: the
 * source it resolves is a mount of the very folder or file opened, so nothing a container
 * does to the volume's paths in between changes what is bound. Each start of a container
 * opens and binds again (a target left by an earlier start is unmounted first); the targets
 * go with the pod ({@link unbindPod}).
 */
export class SubPathBinds {
  constructor(private readonly mounts: MountCommand) {}

  /** Binds the mount's subPath at its target; the target, for runc to bind. Throws {@link VolumeError} (host paths only in its `detail`). */
  async bind(podDir: string, mount: SubPathMount): Promise<string> {
    const wanted = subPathTarget(podDir, mount);
    const held = await openSubPath(mount);
    try {
      const target = await this.prepareTarget(wanted, held.stats.isDirectory());
      await this.mounts.bind(held.procPath, target);
      return target;
    } catch (error) {
      const detail = error instanceof VolumeError ? (error.detail ?? error.message) : error instanceof Error ? error.message : String(error);
      throw new VolumeError(`failed to prepare subPath for volumeMount "${mount.volumeName}" of container "${mount.containerName}"`, `${held.path}: ${detail}`);
    } finally {
      held.close();
    }
  }

  /** Unmounts and removes every subPath target of the pod (idempotent); fails, removing nothing, while one stays mounted. */
  async unbindPod(podDir: string): Promise<void> {
    let dir: string;
    try {
      dir = await realpath(join(podDir, SUBPATHS_DIR));
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (let round = 0; round < UNMOUNT_ROUNDS; round++) {
      const mounted = mountsUnder(await readMountTable(), dir);
      if (mounted.length === 0) break;
      for (const entry of [...mounted].reverse()) await this.mounts.unmount(entry.mountPoint, { lazy: true }).catch(() => undefined);
    }
    const left = mountsUnder(await readMountTable(), dir);
    if (left.length > 0) throw new VolumeError('unmount failed', `${dir}: still mounted: ${left.map((entry) => entry.mountPoint).join(', ')}`);
    // Nothing is mounted below: only the empty targets and their folders are removed.
    await rm(dir, { recursive: true, force: true });
  }

  /**
   * The target, made a folder or an empty file as the source is (kubelet's prepareSubpathTarget),
   * with nothing mounted on it; its real path (the mount table's).
   */
  private async prepareTarget(wanted: string, folder: boolean): Promise<string> {
    await mkdir(dirname(wanted), { recursive: true, mode: 0o750 });
    const target = join(await realpath(dirname(wanted)), basename(wanted));
    for (let round = 0; round < UNMOUNT_ROUNDS && (await isMountPoint(target)); round++) await this.mounts.unmount(target, { lazy: true });
    if (await isMountPoint(target)) throw new VolumeError('unmount failed', `${target}: still mounted`);
    const present = await lstat(target).catch((error: unknown) => {
      if (isMissing(error)) return undefined;
      throw error;
    });
    if (present !== undefined && present.isDirectory() === folder) return target;
    if (present?.isDirectory() === true) await rmdir(target);
    else if (present !== undefined) await unlink(target);
    if (folder) await mkdir(target, { mode: 0o750 });
    else await writeFile(target, '', { mode: 0o640, flag: 'wx' });
    return target;
  }
}
