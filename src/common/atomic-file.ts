import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes a file so that readers see either the old or the new contents, never half of it,
 * and the new contents survive a crash once this returns: temporary file, fsync, rename,
 * fsync of the folder. The file gets exactly `mode` whatever the umask (and whatever mode a
 * temporary file left by a crash had); it is created with `mode`, so a key is never readable
 * by others even while being written.
 */
export function writeFileAtomic(path: string, contents: string | Uint8Array, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', mode);
  try {
    fchmodSync(fd, mode);
    writeSync(fd, typeof contents === 'string' ? Buffer.from(contents) : contents);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** One file of {@link writeFilesAtomic}: its name in the folder, contents and exact mode, and the owner to give it (needs CAP_CHOWN unless it is the writer). */
export interface AtomicFile {
  readonly name: string;
  readonly contents: string | Uint8Array;
  readonly mode: number;
  readonly owner?: { readonly uid: number; readonly gid: number };
}

/** A temporary file with exactly `mode` (and `owner`, given before any byte is written), written and fsynced. */
async function writeDurable(path: string, { contents, mode, owner }: AtomicFile): Promise<void> {
  const handle = await open(path, 'w', mode);
  try {
    await handle.chmod(mode);
    // After the chmod: once the file is another user's, only CAP_FOWNER could change its mode.
    if (owner !== undefined) await handle.chown(owner.uid, owner.gid);
    await handle.writeFile(contents);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes several files into `dir` with {@link writeFileAtomic}'s guarantees, without blocking
 * the event loop: every temporary file (`<name>.<pid>.tmp`, created with its mode) is written
 * and fsynced at once on the thread pool (their fsyncs share the file system's journal
 * commits), then each is renamed over its file in the order given, then the folder is fsynced
 * once. A reader sees each file old or new, never part of one, and sees them replaced in the
 * order given; all of them survive a crash once this resolves. One call at a time per folder
 * (the temporary names are per process). When a temporary file cannot be written, none is
 * renamed and the temporary files are removed; when a rename fails, the files renamed before
 * it stay new.
 */
export async function writeFilesAtomic(dir: string, files: readonly AtomicFile[]): Promise<void> {
  const temporary = (file: AtomicFile): string => join(dir, `${file.name}.${process.pid}.tmp`);
  const written = await Promise.allSettled(files.map((file) => writeDurable(temporary(file), file)));
  try {
    const failed = written.find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
    for (const file of files) await rename(temporary(file), join(dir, file.name));
  } catch (error) {
    await Promise.all(files.map((file) => rm(temporary(file), { force: true }).catch(() => undefined)));
    throw error;
  }
  const folder = await open(dir, 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/**
 * Replaces `path` so that readers see the old or the new contents, never half of it, without
 * waiting for the disk: a temporary file created with exactly `mode`, then a rename. For state
 * that need not outlive the machine's uptime (what it describes does not survive a reboot
 * either: a site's running containers); what must survive a crash uses {@link writeFileAtomic}.
 * One call at a time per path (the temporary name is per process).
 */
export async function replaceFileAtomic(path: string, contents: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await rm(temporary, { force: true });
  await writeFile(temporary, contents, { mode, flag: 'wx' });
  await rename(temporary, path);
}
