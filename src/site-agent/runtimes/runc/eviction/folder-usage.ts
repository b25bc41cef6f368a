import { closeSync, constants, fstatSync, lstatSync, openSync, opendirSync, type Dir, type Stats } from 'node:fs';
import { join, relative } from 'node:path';

/** What a walk knows of a folder's usage. */
export interface FolderUsage {
  /** Bytes of disk blocks: the last complete walk's figure, or the walk under way's when it has counted more. */
  readonly bytes: number;
  /** Whether the walk under way finished in this step (the figure is then a whole walk's). */
  readonly complete: boolean;
}

/** The entry's lstat, or undefined when it is gone (or cannot be stat'ed). */
function lstatOrNothing(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** A folder still to read, with the device and inode its parent's listing showed (what is opened must be that folder). */
interface PendingFolder {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

/** How many entries are stat'ed between two turns of the event loop (a few milliseconds of it). */
const STAT_BATCH = 256;
const FOLDER_FLAGS = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0);
/** Paths longer than this are opened a component at a time (the kernel refuses paths over PATH_MAX, 4096 bytes). */
const LONG_PATH = 2048;

/**
 * Opens the folder at `path` below `root` without following a symbolic link: by its path when
 * short, else one component at a time, each relative to the folder opened before it
 * (`/proc/self/fd/<fd>/<name>`, as openat would), so a tenant cannot hide a folder by nesting it
 * deeper than a path can name.
 */
function openFolder(root: string, path: string): number {
  if (Buffer.byteLength(path) < LONG_PATH) return openSync(path, FOLDER_FLAGS);
  let fd = openSync(root, FOLDER_FLAGS);
  try {
    for (const name of relative(root, path).split('/')) {
      const next = openSync(`/proc/self/fd/${fd}/${name}`, FOLDER_FLAGS);
      closeSync(fd);
      fd = next;
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * `du -sx` of one folder a tenant writes (a container's folder, an emptyDir), one budgeted step
 * at a time: each {@link step} stat's at most `budget` entries and the walk resumes where it
 * stopped at the next step, so a folder of millions of files costs the same per step as a
 * small one and is still counted whole, over several steps. Counted as du counts: the disk
 * blocks of every entry (`st_blocks` × 512: a sparse file counts what it holds, a folder its
 * own blocks), a file with several hard links once, symbolic links never followed (their own
 * blocks only), nothing on another file system (a mount point and what is below it).
 *
 * The calls are synchronous (a promise per lstat costs ~20 µs of the agent's time, a plain
 * call a few), in batches of {@link STAT_BATCH} entries with a turn of the event loop between.
 *
 * Safe against a tenant who swaps a folder for a symbolic link while it is walked: each folder
 * is opened with `O_NOFOLLOW` (a component at a time when its path is too long for one call),
 * checked to be the device and inode its parent listed, and read and its entries stat'ed through
 * the opened descriptor (`/proc/self/fd/<fd>/<name>`), never through the path again — so the
 * walk never leaves the folder, whatever is renamed meanwhile.
 */
export class FolderWalk {
  /** Folders listed and not read yet. */
  private pending: PendingFolder[] = [];
  /** The folder being read: its descriptor (its entries are reached through it) and its listing. */
  private reading: { readonly fd: number; readonly dir: Dir; readonly path: string } | undefined;
  private bytes = 0;
  private device: number | undefined;
  /** dev:ino of files with several links counted by this walk. */
  private linked = new Set<string>();
  private walking = false;
  /** The last complete walk's bytes. */
  private last: number | undefined;

  constructor(readonly root: string) {}

  /** Walks on for at most `budget` entries (a new walk starts when the last one finished); what is known then. */
  async step(budget: number): Promise<FolderUsage> {
    if (!this.walking) this.begin();
    let left = budget;
    while (this.walking && left > 0) {
      if (this.reading === undefined && !this.openNext()) {
        left--; // a folder that could not be opened costs an entry too
        continue;
      }
      left -= this.readSome(Math.min(left, STAT_BATCH));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const complete = !this.walking;
    if (complete) this.last = this.bytes;
    return { bytes: complete ? this.bytes : Math.max(this.last ?? 0, this.bytes), complete };
  }

  /** Closes what the walk holds open. */
  close(): void {
    this.closeReading();
    this.pending = [];
    this.walking = false;
  }

  private begin(): void {
    this.bytes = 0;
    this.linked = new Set();
    this.pending = [];
    this.walking = true;
    const stats = lstatOrNothing(this.root);
    if (stats === undefined) {
      this.device = undefined;
      this.walking = false;
      return;
    }
    this.device = stats.dev;
    this.bytes += stats.blocks * 512;
    if (stats.isDirectory()) this.pending.push({ path: this.root, dev: stats.dev, ino: stats.ino });
    else this.walking = false;
  }

  /** Opens the next pending folder (false when it cannot be read: gone, or not the folder listed); ends the walk when none is left. */
  private openNext(): boolean {
    const next = this.pending.pop();
    if (next === undefined) {
      this.walking = false;
      return false;
    }
    let fd: number;
    try {
      fd = openFolder(this.root, next.path);
    } catch {
      return false;
    }
    try {
      const stats = fstatSync(fd);
      if (stats.dev !== next.dev || stats.ino !== next.ino) throw new Error('not the folder listed');
      this.reading = { fd, dir: opendirSync(`/proc/self/fd/${fd}`, { bufferSize: STAT_BATCH }), path: next.path };
      return true;
    } catch {
      closeSync(fd);
      return false;
    }
  }

  /** Reads and stat's up to `count` entries of the open folder; how many it stat'ed. */
  private readSome(count: number): number {
    const reading = this.reading;
    if (reading === undefined) return 0;
    const base = `/proc/self/fd/${reading.fd}`;
    let read = 0;
    for (; read < count; read++) {
      let name: string;
      try {
        const entry = reading.dir.readSync();
        if (entry === null) break;
        name = entry.name;
      } catch {
        break;
      }
      this.count(reading.path, name, lstatOrNothing(join(base, name)));
    }
    if (read < count) this.closeReading();
    return Math.max(1, read);
  }

  /** Adds an entry of `folder` to the walk: its blocks (a file with several links once), and a folder to read later. */
  private count(folder: string, name: string, entry: Stats | undefined): void {
    if (entry === undefined || entry.dev !== this.device) return;
    if (entry.isDirectory()) {
      this.pending.push({ path: join(folder, name), dev: entry.dev, ino: entry.ino });
    } else if (entry.nlink > 1) {
      const key = `${entry.dev}:${entry.ino}`;
      if (this.linked.has(key)) return;
      this.linked.add(key);
    }
    this.bytes += entry.blocks * 512;
  }

  private closeReading(): void {
    const reading = this.reading;
    this.reading = undefined;
    if (reading === undefined) return;
    try {
      reading.dir.closeSync();
    } catch {
      // already closed
    }
    closeSync(reading.fd);
  }
}
