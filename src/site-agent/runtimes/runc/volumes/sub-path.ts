import { chmod, lstat, mkdir, realpath, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { VolumeError } from './volume-error.js';

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';
const within = (base: string, path: string): boolean => path === base || path.startsWith(`${base}/`);

/** Why a `subPath` can never be mounted (kubelet's words), or undefined: absolute paths and `..` steps. */
function subPathProblem(subPath: string): string | undefined {
  if (posix.isAbsolute(subPath)) return `error SubPath \`${subPath}\` must not be an absolute path`;
  if (subPath.split('/').includes('..')) return `unable to provision SubPath \`${subPath}\`: must not contain '..'`;
  return undefined;
}

/**
 * kubelet's `SafeMakeDir`: creates the missing folders of `subPath` below `base` with the
 * volume's own mode, following a symlink only when it resolves to a folder inside the volume.
 */
async function makeSubPathDirs(base: string, subPath: string, mode: number): Promise<void> {
  let current = base;
  for (const part of subPath.split('/').filter((segment) => segment !== '' && segment !== '.')) {
    const next = join(current, part);
    let info;
    try {
      info = await lstat(next);
    } catch (error) {
      if (!isMissing(error)) throw error;
      await mkdir(next, { mode });
      await chmod(next, mode);
      current = next;
      continue;
    }
    if (info.isSymbolicLink()) {
      const target = await realpath(next);
      if (!within(base, target)) throw new Error(`${next} resolves to ${target}, outside the volume ${base}`);
      current = target;
    } else current = next;
    if (!(await stat(current)).isDirectory()) throw new Error(`${current} is not a directory`);
  }
}

/**
 * The host path to bind for a volume mount's `subPath`: `<volume>/<subPath>` with its symlinks
 * resolved, created as a folder (with the volume's mode) when absent, as kubelet does. A
 * subPath that is absolute, has a `..` step, or resolves — through a symlink anywhere on the
 * way — outside the volume is refused. The check and runc's bind are not one step: a container
 * that can write the volume could swap a checked folder for a symlink in between (kubelet
 * closes that gap by binding an opened file descriptor, which Node cannot open without
 * following symlinks).
 */
export async function resolveSubPath(volumeDir: string, subPath: string, mountName: string, containerName: string): Promise<string> {
  const problem = subPathProblem(subPath);
  if (problem !== undefined) throw new VolumeError(problem);
  const base = await realpath(volumeDir);
  const path = join(base, subPath);
  const exists = await stat(path).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
  if (!exists) {
    const mode = (await stat(base)).mode & 0o7777;
    await makeSubPathDirs(base, subPath, mode).catch((error: unknown) => {
      throw new VolumeError(`failed to create subPath directory for volumeMount "${mountName}" of container "${containerName}"`, (error as Error).message);
    });
  }
  let resolved: string;
  try {
    resolved = await realpath(path);
  } catch (error) {
    throw new VolumeError(`failed to prepare subPath for volumeMount "${mountName}" of container "${containerName}"`, (error as Error).message);
  }
  if (!within(base, resolved)) throw new VolumeError(`failed to prepare subPath for volumeMount "${mountName}" of container "${containerName}"`, `subpath ${resolved} not within volume path ${base}`);
  return resolved;
}
