import { chmodSync, closeSync, constants, fstatSync, mkdirSync, openSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/**
 * open(2)'s `O_PATH` (010000000 in asm-generic and on x86), which Node does not name: a
 * descriptor that holds a file — a folder to resolve the next step in, a file to bind —
 * without reading it, and that `fstat` answers for.
 */
const O_PATH = 0o10000000;
const { O_CREAT, O_DIRECTORY, O_EXCL, O_NOFOLLOW, O_WRONLY } = constants;

/** A path below a root that cannot be reached without following a symlink, or through a file that is not a folder. */
export class PathBeneathError extends Error {
  override readonly name = 'PathBeneathError';
}

/**
 * A file held open by its descriptor (`O_PATH`): what it is, and how to reach it. Whatever is
 * renamed, removed or replaced by a symlink afterwards, the descriptor still names this file.
 */
export class HeldPath {
  constructor(
    readonly fd: number,
    readonly stats: Stats,
    /** The path it was reached by (for messages and logs: it may name something else now). */
    readonly path: string,
  ) {}

  /** `/proc/<pid>/fd/<fd>`: what another process (mount(8)) opens to reach this very file, not a path that can change under it. */
  get procPath(): string {
    return `/proc/${process.pid}/fd/${this.fd}`;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * The components of a path below a root, `.` and empty ones dropped; a leading `/` means the
 * root itself. `..` is refused (a path below a root never climbs), as is a NUL byte. Pure.
 */
export function pathSteps(relative: string): string[] {
  if (relative.includes('\0')) throw new PathBeneathError(`${JSON.stringify(relative)}: a path must not contain a NUL byte`);
  const steps = relative.split('/').filter((step) => step !== '' && step !== '.');
  if (steps.includes('..')) throw new PathBeneathError(`${relative}: must not contain '..'`);
  return steps;
}

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

/**
 * `name` in the folder `parent` holds, opened without following it: through the magic link
 * `/proc/self/fd/<parent>` the lookup starts in that very folder (openat(2) by another name),
 * and `O_NOFOLLOW` makes a symlink come back as itself. Undefined when there is no such entry.
 */
function openStep(parent: number, name: string, shown: string): HeldPath | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/self/fd/${parent}/${name}`, O_PATH | O_NOFOLLOW);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return new HeldPath(fd, fstatSync(fd), shown);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** The root, which the caller trusts (a real path: not a symlink itself), held. */
function openRoot(root: string): HeldPath {
  const fd = openSync(root, O_PATH | O_DIRECTORY | O_NOFOLLOW);
  try {
    return new HeldPath(fd, fstatSync(fd), root);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** How a walk treats the steps it cannot simply open. */
interface WalkRules {
  /** At a step that does not exist: makes it (then the walk opens it); without it, the walk fails. */
  readonly make?: (parent: HeldPath, name: string, last: boolean) => void;
  /** A step just made, opened by the walk. */
  readonly made?: (step: HeldPath) => void;
  /** At a symlink, or a file before the last step: stop quietly (the walk returns undefined) instead of failing. */
  readonly stopWhenBlocked?: boolean;
}

/**
 * The descriptor-by-descriptor walk every function here is: from the root, each step opened
 * in the folder held before it, never following a symlink; the last step held and returned.
 */
function walk(root: string, relative: string, rules: WalkRules): HeldPath | undefined {
  const steps = pathSteps(relative);
  let current = openRoot(root);
  try {
    for (const [index, name] of steps.entries()) {
      const shown = join(root, ...steps.slice(0, index + 1));
      const last = index === steps.length - 1;
      let next = openStep(current.fd, name, shown);
      let made = false;
      if (next === undefined) {
        if (rules.make === undefined) throw new PathBeneathError(`cannot open ${shown}: no such file or directory`);
        rules.make(current, name, last);
        next = openStep(current.fd, name, shown);
        if (next === undefined) throw new PathBeneathError(`cannot open ${shown}: removed as it was made`);
        made = true;
      }
      current.close();
      current = next;
      const why = current.stats.isSymbolicLink() ? `unexpected symlink found ${shown}` : !last && !current.stats.isDirectory() ? `${shown} is not a directory` : undefined;
      if (why !== undefined) {
        if (rules.stopWhenBlocked !== true) throw new PathBeneathError(why);
        current.close();
        return undefined;
      }
      if (made) rules.made?.(current);
    }
    return current;
  } catch (error) {
    current.close();
    throw error;
  }
}

/**
 * Opens `relative` below `root` (kubelet's safe open): each component opened in the folder
 * opened before it, no symlink followed at any step — one anywhere fails with
 * "unexpected symlink found <path>", as does a step through a file. The file is held: the
 * caller closes it. `root` is trusted and must be a real path.
 */
export function openBeneath(root: string, relative: string): HeldPath {
  return walk(root, relative, {}) as HeldPath;
}

/** The status of `relative` below `root` without following any symlink on the way (lstat's, for the last step); undefined when that cannot be. */
export function statBeneath(root: string, relative: string): Stats | undefined {
  try {
    const held = openBeneath(root, relative);
    held.close();
    return held.stats;
  } catch {
    return undefined;
  }
}

/** mkdir(2) of `name` in the held folder; one already there (made meanwhile) is fine: the walk opens whatever it is. */
function makeFolder(parent: HeldPath, name: string, mode: number): void {
  try {
    mkdirSync(`/proc/self/fd/${parent.fd}/${name}`, { mode });
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}

/**
 * Makes the folders of `relative` below `root` that are missing, each with `mode` past the
 * umask, and holds the last one (kubelet's SafeMakeDir): every folder, old or new, is opened
 * in the one before it without following a symlink, and a new one is given its mode through
 * its descriptor, so a symlink swapped in at any moment fails the walk instead of sending it —
 * and the folders it makes — out of `root`.
 */
export function makeDirsBeneath(root: string, relative: string, mode: number): HeldPath {
  return walk(root, relative, {
    make: (parent, name) => makeFolder(parent, name, mode),
    // Held without following it: chmod through /proc/self/fd reaches that folder itself.
    made: (folder) => chmodSync(`/proc/self/fd/${folder.fd}`, mode),
  }) as HeldPath;
}

/**
 * Makes a mount point at `relative` below `root` (a container's root file system): the
 * missing folders on the way (0755), then a folder or an empty file (`O_EXCL`: never through
 * a symlink) — or nothing when something is there already. Nothing is followed: at a symlink
 * or a file on the way it stops, making nothing more, and leaves the path to the OCI runtime,
 * which resolves a mount's destination inside the root itself (runc's securejoin).
 */
export function makeMountPointBeneath(root: string, relative: string, kind: 'folder' | 'file'): void {
  const held = walk(root, relative, {
    make: (parent, name, last) => (last && kind === 'file' ? makeEmptyFile(parent, name) : makeFolder(parent, name, 0o755)),
    stopWhenBlocked: true,
  });
  held?.close();
}

function makeEmptyFile(parent: HeldPath, name: string): void {
  try {
    closeSync(openSync(`/proc/self/fd/${parent.fd}/${name}`, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644));
  } catch (error) {
    if (codeOf(error) !== 'EEXIST') throw error;
  }
}
