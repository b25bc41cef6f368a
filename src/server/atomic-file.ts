import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

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
