import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, lchown, lstat, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { IdRange } from '../oci/index.js';

const run = promisify(execFile);
/** The id a container user outside the range becomes (the kernel's overflow id, nobody, inside the range). */
const OVERFLOW = 65534;
const COMPLETE = 'complete';

/** A host id of the image's files as the range's: container id `id` is host id `hostId + id` (ids the range lacks become its nobody). */
export function shiftedId(id: number, range: IdRange): number {
  return range.hostId + (id < range.size ? id : Math.min(OVERFLOW, range.size - 1));
}

/** Gives every entry of a tree the shifted owner and group, keeping setuid/setgid bits (chown clears them) and never following links. */
async function shiftTree(path: string, range: IdRange): Promise<number> {
  const info = await lstat(path);
  await lchown(path, shiftedId(info.uid, range), shiftedId(info.gid, range));
  if (!info.isSymbolicLink() && (info.mode & 0o6000) !== 0) await chmod(path, info.mode & 0o7777);
  let count = 1;
  if (info.isDirectory()) for (const name of await readdir(path)) count += await shiftTree(join(path, name), range);
  return count;
}

/**
 * The root of an imported image as a user namespace of `range` sees it: a copy of the image's
 * unpacked root (`cp -a`, reflinked where the file system can) whose files belong to the
 * range's ids, made once per image and range beside the image (`shifted/<host id>/rootfs`,
 * complete when its marker is there) and shared by every pod of that range — what Docker's
 * userns-remap does with its layers, since runc 1.1.5 has no idmapped mounts. File
 * capabilities (`security.capability`) do not survive the change of owner. Returns the path.
 */
export async function shiftedImageRoot(imageRootfs: string, range: IdRange): Promise<string> {
  const dir = join(dirname(imageRootfs), 'shifted', String(range.hostId));
  const rootfs = join(dir, 'rootfs');
  if (await stat(join(dir, COMPLETE)).then(() => true, () => false)) return rootfs;
  await mkdir(dirname(dir), { recursive: true, mode: 0o700 });
  const building = `${dir}.building-${randomBytes(4).toString('hex')}`;
  try {
    await mkdir(building, { mode: 0o700 });
    await run('cp', ['-a', '--reflink=auto', imageRootfs, join(building, 'rootfs')], { maxBuffer: 1 << 20 });
    const entries = await shiftTree(join(building, 'rootfs'), range);
    await writeFile(join(building, COMPLETE), `${entries}\n`);
    await rename(building, dir).catch((error: NodeJS.ErrnoException) => {
      // Another start made it meanwhile: theirs is as good.
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return rootfs;
}
