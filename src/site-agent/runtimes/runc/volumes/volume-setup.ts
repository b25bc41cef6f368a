import { chmod, chown, mkdir, readdir, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Volume } from '../../../../api/pod-spec-types.js';
import { parseQuantity } from '../../../../api/pod-spec-resources.js';
import { AtomicVolumeWriter } from './atomic-writer.js';
import type { MountCommand } from './mount-command.js';
import { mountsUnder, readMountTable } from '../../../host/index.js';
import { VolumeError } from './volume-error.js';
import { memoryBacked, POD_VOLUMES_DIR, volumeKind } from './volume-kind.js';
import type { VolumeFile } from './volume-types.js';

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Creates `dir` (and its parents); true when `dir` itself is new. */
async function makeDir(dir: string, mode: number): Promise<boolean> {
  const created = await mkdir(dir, { recursive: true, mode });
  if (created === undefined) return false;
  await chmod(dir, mode); // past the umask, as kubelet does
  return true;
}

/** tmpfs options of a memory-backed volume. */
function tmpfsOptions(volume: Volume): string[] {
  if (volumeKind(volume) !== 'emptyDir') return ['nosuid', 'nodev', 'mode=0755'];
  // A writable scratch space for any user, as a fresh tmpfs is and as kubelet leaves it.
  const options = ['nosuid', 'nodev', 'mode=1777'];
  const limit = volume.emptyDir?.sizeLimit;
  if (limit !== undefined) {
    const bytes = parseQuantity(limit)?.value();
    if (bytes === undefined || bytes <= 0n) throw new VolumeError(`volume "${volume.name ?? ''}": invalid emptyDir sizeLimit "${String(limit)}"`);
    options.push(`size=${bytes}`);
  }
  return options;
}

/**
 * Sets up and tears down the host side of a pod's volumes: the folders the runtime binds into
 * containers (see `volumeDir` for where they are). Secret, projected and downwardAPI volumes,
 * and emptyDir with `medium: Memory`, are a tmpfs mounted at the folder, so their files exist
 * only in memory; configMap volumes are on disk; both are written by {@link AtomicVolumeWriter}.
 */
export class VolumeSetup {
  constructor(private readonly mounts: MountCommand) {}

  /**
   * Makes `dir` hold the volume with `contents` (from `volumeContents`). Idempotent: calling it
   * again with new contents swaps them atomically (configMap/secret updates), with the same
   * contents changes nothing. Returns true when the files changed. emptyDir is a folder writable
   * by every user (`0777`; a tmpfs of `sizeLimit` bytes with `medium: Memory`); a
   * persistentVolumeClaim's folder is created `0777` when absent, as the hostPath provisioner
   * does, and never cleared. disk-backed emptyDir `sizeLimit` is not enforced. With `owner` (a
 * user-namespaced pod's root, as a host id) the emptyDir, a new claim folder and the written
 * files are that id's, as an idmapped mount would show them to the pod's root.
   */
  async setUpVolume(dir: string, volume: Volume, contents: readonly VolumeFile[], owner?: number): Promise<boolean> {
    const kind = volumeKind(volume);
    if ((kind === 'emptyDir' || kind === 'persistentVolumeClaim') && contents.length > 0) throw new VolumeError(`volume "${volume.name ?? ''}": ${kind} volumes have no planned contents`);
    const made = kind === 'persistentVolumeClaim' || kind === 'emptyDir' ? await makeDir(dir, 0o777) : await makeDir(dir, 0o755);
    if (memoryBacked(volume)) await this.ensureTmpfs(dir, tmpfsOptions(volume));
    // A user-namespaced pod's root owns its emptyDirs and a claim folder it makes (the cluster's ids are the same in all its pods on the site).
    if (owner !== undefined && (kind === 'emptyDir' || (kind === 'persistentVolumeClaim' && made))) await chown(dir, owner, owner);
    if (kind === 'emptyDir' || kind === 'persistentVolumeClaim') return false;
    return new AtomicVolumeWriter(dir, owner).write(contents);
  }

  /**
   * Unmounts whatever is mounted at or below `dir` and removes it. Idempotent; refuses to remove
   * a folder that still has a mount below it. Never call it on a persistentVolumeClaim's folder
   * (its data outlives pods): {@link tearDownPodVolumes} only walks the pod's own folders.
   */
  async tearDownVolume(dir: string): Promise<void> {
    let real: string;
    try {
      real = await realpath(dir);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    await this.unmountAll(real);
    await rm(real, { recursive: true, force: true });
  }

  /** Tears down every volume under `<podDir>/volumes` and removes that folder. */
  async tearDownPodVolumes(podDir: string): Promise<void> {
    const root = join(podDir, POD_VOLUMES_DIR);
    let plugins: string[];
    try {
      plugins = await readdir(root);
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    for (const plugin of plugins) for (const name of await readdir(join(root, plugin))) await this.tearDownVolume(join(root, plugin, name));
    await this.tearDownVolume(root);
  }

  private async ensureTmpfs(dir: string, options: readonly string[]): Promise<void> {
    const real = await realpath(dir);
    if (await this.isTmpfs(real)) return;
    await this.mounts.tmpfs(real, options);
    // Before any secret byte is written: the folder must be the tmpfs now, not the disk below it.
    if (!(await this.isTmpfs(real))) throw new VolumeError('mount failed', `${real}: no tmpfs at the volume's folder after mounting one`);
  }

  private async isTmpfs(real: string): Promise<boolean> {
    const top = (await readMountTable()).filter((entry) => entry.mountPoint === real).at(-1);
    return top?.fsType === 'tmpfs';
  }

  private async unmountAll(real: string): Promise<void> {
    let failure = '';
    for (let round = 0; round < 8; round++) {
      const mounted = mountsUnder(await readMountTable(), real);
      if (mounted.length === 0) return;
      // The deepest and latest first, so each unmount uncovers the next.
      const ordered = [...mounted].reverse().sort((a, b) => b.mountPoint.length - a.mountPoint.length);
      for (const entry of ordered) {
        await this.mounts.unmount(entry.mountPoint).catch((error: unknown) => {
          failure = error instanceof VolumeError ? (error.detail ?? error.message) : String(error);
        });
      }
    }
    const left = mountsUnder(await readMountTable(), real);
    if (left.length > 0) throw new VolumeError('unmount failed', `${real}: still mounted: ${left.map((entry) => entry.mountPoint).join(', ')}; ${failure}`);
  }
}
