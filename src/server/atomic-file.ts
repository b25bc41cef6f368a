import { closeSync, fsyncSync, openSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a file so that readers see either the old or the new contents, never half of it,
 * and the new contents survive a crash once this returns: temporary file, fsync, rename,
 * fsync of the folder.
 */
export function writeFileAtomic(path: string, contents: string | Uint8Array, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, 'w', mode);
  try {
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
