import { realpath, stat } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import { makeDirsBeneath, openBeneath, type HeldPath } from '../../../host/index.js';
import { VolumeError } from './volume-error.js';

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';
const within = (base: string, path: string): boolean => path === base || path.startsWith(`${base}/`);

/** Why a `subPath` can never be mounted (kubelet's words), or undefined: absolute paths and `..` steps. */
function subPathProblem(subPath: string): string | undefined {
  if (posix.isAbsolute(subPath)) return `error SubPath \`${subPath}\` must not be an absolute path`;
  if (subPath.split('/').includes('..')) return `unable to provision SubPath \`${subPath}\`: must not contain '..'`;
  return undefined;
}

/** Where a subPath leads now: the part that exists (relative to the volume's real path, symlinks evaluated) and the steps still missing. */
interface SubPathPlan {
  readonly existing: string;
  readonly missing: readonly string[];
}

/**
 * kubelet's EvalSymlinks step: follows the subPath's symlinks as they are now, refusing one
 * that leads out of the volume ("subpath … not within volume path …"). Only a plan, read by
 * path: what is bound is opened afterwards without following any symlink, so a symlink
 * swapped in since makes that open fail instead of escaping.
 */
async function planSubPath(base: string, subPath: string): Promise<SubPathPlan> {
  const steps = subPath.split('/').filter((step) => step !== '' && step !== '.');
  let current = base;
  for (const [index, step] of steps.entries()) {
    let next: string;
    try {
      next = await realpath(join(current, step));
    } catch (error) {
      if (isMissing(error)) return { existing: relative(base, current), missing: steps.slice(index) };
      throw error;
    }
    if (!within(base, next)) throw new Error(`subpath ${JSON.stringify(next)} not within volume path ${JSON.stringify(base)}`);
    current = next;
  }
  return { existing: relative(base, current), missing: [] };
}

/** One volume mount of a container that has a `subPath`. */
export interface SubPathMount {
  /** The host folder of the volume. */
  readonly volumeDir: string;
  readonly subPath: string;
  /** The volume's name (the mount's `name`). */
  readonly volumeName: string;
  readonly containerName: string;
  /** The mount's index in the container's `volumeMounts` (kubelet names its bind target so). */
  readonly index: number;
}

/**
 * Opens a volume mount's `subPath` and holds it (the caller binds it by its descriptor, then
 * closes it), as kubelet's SafeMakeDir and safe open do: a subPath that is absolute or has a
 * `..` step is refused; one that does not exist is made, folder by folder, with the volume's
 * own mode; then each step is opened in the folder opened before it without following any
 * symlink. A symlink may be on the way only while it stays inside the volume, and only as it
 * was when the path was planned: a symlink that leads out, or one swapped in meanwhile, fails
 * with kubelet's words ("failed to prepare subPath for volumeMount …", or "failed to create
 * subPath directory …" while making it); the host's paths stay in `detail` for the log.
 */
export async function openSubPath(mount: SubPathMount): Promise<HeldPath> {
  const { subPath, volumeName, containerName } = mount;
  const problem = subPathProblem(subPath);
  if (problem !== undefined) throw new VolumeError(problem);
  const failure = (what: string, error: unknown): VolumeError =>
    new VolumeError(`failed to ${what} for volumeMount "${volumeName}" of container "${containerName}"`, error instanceof Error ? error.message : String(error));
  let base: string;
  let exists: boolean;
  try {
    base = await realpath(mount.volumeDir);
    exists = await stat(join(base, subPath)).then(() => true, (error: unknown) => (isMissing(error) ? false : Promise.reject(error as Error)));
  } catch (error) {
    throw failure('prepare subPath', error);
  }
  if (!exists) {
    try {
      const mode = (await stat(base)).mode & 0o7777;
      const plan = await planSubPath(base, subPath);
      return makeDirsBeneath(base, join(plan.existing, ...plan.missing), mode);
    } catch (error) {
      throw failure('create subPath directory', error);
    }
  }
  try {
    const plan = await planSubPath(base, subPath);
    if (plan.missing.length > 0) throw new Error(`${join(base, subPath)} was removed as it was opened`);
    return openBeneath(base, plan.existing);
  } catch (error) {
    throw failure('prepare subPath', error);
  }
}
