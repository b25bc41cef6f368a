import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { BindMount } from '../oci/index.js';
import { isMountPoint, makeMountPointBeneath, mountsUnder, readMountTable, statBeneath } from '../../../host/index.js';

/** Mounting or unmounting a container's root failed: what was run and what the kernel said. */
export class ContainerRootError extends Error {}

/** The folders runc mounts kernel file systems on; a read-only root must already have them. */
const SYSTEM_MOUNT_POINTS = ['proc', 'dev', 'sys'];

function run(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { encoding: 'utf8', timeout: 30_000 }, (error, _stdout, stderr) => {
      if (error === null) resolve();
      else reject(new ContainerRootError(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
    });
  });
}

/**
 * Makes each mount point (a folder, or an empty file when the source is a file) under `root`,
 * keeping what is there. The root is an image's, whose symlinks may point anywhere on the host
 * (`/var/run → /run`, or a hostile image's `/data → /`): each point is made by descriptor,
 * never through a symlink, and one behind a symlink is left to runc, which resolves it inside
 * the root.
 */
async function makeMountPoints(root: string, mountPoints: readonly BindMount[]): Promise<void> {
  for (const dir of SYSTEM_MOUNT_POINTS) makeMountPointBeneath(root, dir, 'folder');
  for (const point of mountPoints) {
    const sourceIsDir = await stat(point.source).then((s) => s.isDirectory(), () => true);
    makeMountPointBeneath(root, point.destination, sourceIsDir ? 'folder' : 'file');
  }
}

/** Gives `dir` the owner and mode of the image's folder at `relative`, when the image has that folder (not through a symlink of the image). */
async function takeAttributes(dir: string, imageRootfs: string, relative: string): Promise<void> {
  const image = statBeneath(imageRootfs, relative);
  if (image === undefined || !image.isDirectory()) return;
  await chown(dir, image.uid, image.gid);
  await chmod(dir, image.mode & 0o7777);
}

/**
 * Overlayfs shows a merged folder with the owner and mode of its topmost layer's copy: each
 * folder of the mount-point layer (its root included) takes those of the image's folder at the
 * same path, so the layer changes what the container sees of the image nowhere.
 */
async function mirrorImageFolders(layer: string, imageRootfs: string, relative = ''): Promise<void> {
  await takeAttributes(join(layer, relative), imageRootfs, relative);
  for (const entry of await readdir(join(layer, relative), { withFileTypes: true })) {
    if (entry.isDirectory()) await mirrorImageFolders(layer, imageRootfs, join(relative, entry.name));
  }
}

/**
 * A container's root file system over an image's unpacked root, as an overlayfs mount in
 * `<containerDir>/root/merged` (the path returned). Writable: the image root is the lower
 * layer and the container's writes go to `<containerDir>/root/upper`, so the image is never
 * changed and containers of one image share it. Read-only (`readOnlyRootFilesystem`): no
 * upper layer at all — the kernel refuses every write — over a small layer of the mount
 * points the container needs (`mountPoints`: its volumes, /etc/hosts…, plus /proc, /dev, /sys),
 * since runc cannot make them in a read-only root. Already mounted (an agent restart): the
 * mount is kept and its path returned. The root folder (and, read-only, each folder of the
 * mount-point layer) has the image's owner and mode — overlayfs shows the top layer's, and
 * a 0700 layer folder would shut every non-root user out of `/`.
 */
export async function mountContainerRoot(imageRootfs: string, containerDir: string, readOnly: boolean, mountPoints: readonly BindMount[] = [], traversable = false): Promise<string> {
  const base = join(containerDir, 'root');
  const merged = join(base, 'merged');
  if (await isMountPoint(merged)) return merged;
  for (const path of [imageRootfs, base]) {
    if (/[,:\n]/.test(path)) throw new ContainerRootError(`${path}: an overlay layer's path cannot hold ",", ":" or a newline`);
  }
  if (!(await stat(imageRootfs).then((s) => s.isDirectory(), () => false))) throw new ContainerRootError(`the image root ${imageRootfs} is not a folder`);
  await mkdir(merged, { recursive: true, mode: 0o700 });
  let options: string;
  if (readOnly) {
    const points = join(base, 'mount-points');
    await mkdir(points, { recursive: true });
    await makeMountPoints(points, mountPoints);
    await mirrorImageFolders(points, imageRootfs);
    options = `ro,lowerdir=${points}:${imageRootfs}`;
  } else {
    for (const dir of ['upper', 'work']) await mkdir(join(base, dir), { recursive: true, mode: 0o700 });
    // `base` stays 0700: host users cannot reach the container's layer.
    await takeAttributes(join(base, 'upper'), imageRootfs, '');
    options = `lowerdir=${imageRootfs},upperdir=${join(base, 'upper')},workdir=${join(base, 'work')}`;
  }
  // runc reaches a user-namespaced container's root as the namespace's root, which must pass through `base` (not list it).
  if (traversable) await chmod(base, 0o711);
  await run('mount', ['-t', 'overlay', 'overlay', '-o', options, merged]);
  if (!readOnly) await makeMountPoints(merged, mountPoints);
  return merged;
}

/**
 * Unmounts a root made by {@link mountContainerRoot} and removes the container's writable
 * layer with it (a restarted container starts from the image again, as in Kubernetes).
 * Idempotent: a root already gone is fine. Fails, leaving the files, when the mount is busy.
 */
export async function unmountContainerRoot(path: string): Promise<void> {
  if (basename(path) !== 'merged' || basename(dirname(path)) !== 'root') throw new ContainerRootError(`${path} is not a container root made by mountContainerRoot`);
  if (await isMountPoint(path)) await run('umount', [path]);
  if (await isMountPoint(path)) throw new ContainerRootError(`${path} is still mounted after umount`);
  await rm(dirname(path), { recursive: true, force: true });
}

/**
 * Unmounts every mount under `dir`, deepest first: what a container root, or anything else the
 * runtime mounted in a pod's folder, left behind (a crashed agent, a test's clean-up).
 */
export async function unmountAllUnder(dir: string): Promise<void> {
  const under = mountsUnder(await readMountTable(), dir).map((m) => m.mountPoint);
  for (const path of under.sort((a, b) => b.length - a.length)) await run('umount', [path]);
}
