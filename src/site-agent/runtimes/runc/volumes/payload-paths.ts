import { posix } from 'node:path';
import { VolumeError } from './volume-error.js';
import type { VolumeFile } from './volume-types.js';

const MAX_PATH_LENGTH = 4096;
const MAX_FILE_NAME_LENGTH = 255;

/** A payload path, cleaned (Go's path.Clean) and checked as kubelet's atomic writer checks it; throws {@link VolumeError}. */
function payloadPath(path: string): string {
  if (path === '') throw new VolumeError(`invalid path: must not be empty: ""`);
  let clean = posix.normalize(path);
  if (clean.length > 1 && clean.endsWith('/')) clean = clean.slice(0, -1);
  if (posix.isAbsolute(clean)) throw new VolumeError(`invalid path: must be relative path: ${clean}`);
  if (clean.length > MAX_PATH_LENGTH) throw new VolumeError(`invalid path: must be less than or equal to ${MAX_PATH_LENGTH} characters`);
  const items = clean.split('/');
  for (const item of items) {
    if (item === '..') throw new VolumeError(`invalid path: must not contain '..': ${clean}`);
    if (Buffer.byteLength(item) > MAX_FILE_NAME_LENGTH) throw new VolumeError(`invalid path: filenames must be less than or equal to ${MAX_FILE_NAME_LENGTH} characters`);
  }
  // `..data`, `..<timestamp>` and `..data_tmp` are the writer's own names.
  const first = items[0] ?? '';
  if (first.startsWith('..') && first.length > 2) throw new VolumeError(`invalid path: must not start with '..': ${clean}`);
  if (clean === '.') throw new VolumeError(`invalid path: must not be the volume itself: ${path}`);
  return clean;
}

/**
 * A payload with every path checked and cleaned; a later file for the same path replaces an
 * earlier one (kubelet builds payloads as maps). Sorted by path so equal payloads compare equal.
 */
export function cleanPayload(files: readonly VolumeFile[]): VolumeFile[] {
  const byPath = new Map<string, VolumeFile>();
  for (const file of files) {
    const path = payloadPath(file.path);
    byPath.set(path, { path, data: file.data, mode: file.mode & 0o777 });
  }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
