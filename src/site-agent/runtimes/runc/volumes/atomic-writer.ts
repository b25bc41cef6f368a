import { chmod, lchown, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { cleanPayload } from './payload-paths.js';
import type { VolumeFile } from './volume-types.js';

const DATA_DIR = '..data';
const DATA_DIR_TMP = '..data_tmp';

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** `..2006_01_02_15_04_05.` in UTC, the prefix of kubelet's timestamped folders. */
function timestampPrefix(now: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `..${now.getUTCFullYear()}_${pad(now.getUTCMonth() + 1)}_${pad(now.getUTCDate())}_${pad(now.getUTCHours())}_${pad(now.getUTCMinutes())}_${pad(now.getUTCSeconds())}.`;
}

/** The files under a folder: relative path → bytes and permission bits. */
async function readTree(root: string, prefix = ''): Promise<Map<string, { data: Buffer; mode: number }>> {
  const files = new Map<string, { data: Buffer; mode: number }>();
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) for (const [inner, file] of await readTree(root, path)) files.set(inner, file);
    else files.set(path, { data: await readFile(join(root, path)), mode: (await lstat(join(root, path))).mode & 0o777 });
  }
  return files;
}

function samePayload(payload: readonly VolumeFile[], current: ReadonlyMap<string, { data: Buffer; mode: number }>): boolean {
  if (payload.length !== current.size) return false;
  return payload.every((file) => {
    const old = current.get(file.path);
    return old !== undefined && old.mode === file.mode && old.data.equals(file.data);
  });
}

const topLevel = (path: string): string => path.split('/', 1)[0] ?? path;

/** Per target folder, the write in progress: writes to one folder run one after another. */
const inProgress = new Map<string, Promise<unknown>>();

/**
 * kubelet's atomic writer: a volume's files are written into a fresh timestamped folder
 * (`..2024_01_02_03_04_05.123456`), then the `..data` symlink is pointed at it by renaming a
 * new symlink over it — one atomic step — and every top-level name the user sees is a symlink
 * into `..data` (`key → ..data/key`). A reader therefore sees the old files or the new ones,
 * never a mix. Names no longer in the payload and the previous timestamped folders (and any a
 * crash left behind) are removed afterwards. Writing the same payload (bytes, modes and set of
 * paths) again changes nothing.
 */
/** Gives a folder tree written here (nothing mounted in it) to host id `id`. */
async function ownTree(dir: string, id: number): Promise<void> {
  await lchown(dir, id, id);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await ownTree(join(dir, entry.name), id);
    else await lchown(join(dir, entry.name), id, id);
  }
}

export class AtomicVolumeWriter {
  constructor(
    readonly targetDir: string,
    /** The host id that owns what is written (a user-namespaced pod's root); none: host root. */
    private readonly owner?: number,
  ) {}

  /** Writes the payload; true when the visible contents changed. */
  write(files: readonly VolumeFile[]): Promise<boolean> {
    const previous = inProgress.get(this.targetDir) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.writeNow(cleanPayload(files)));
    inProgress.set(this.targetDir, next);
    void next.finally(() => {
      if (inProgress.get(this.targetDir) === next) inProgress.delete(this.targetDir);
    }).catch(() => undefined);
    return next;
  }

  /** The timestamped folder `..data` points at, or undefined before the first write. */
  async currentDataDir(): Promise<string | undefined> {
    try {
      return await readlink(join(this.targetDir, DATA_DIR));
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  private async writeNow(payload: VolumeFile[]): Promise<boolean> {
    const target = this.targetDir;
    const oldDir = await this.currentDataDir();
    const oldFiles = oldDir === undefined ? undefined : await readTree(join(target, oldDir)).catch((error: unknown) => {
      if (isMissing(error)) return undefined; // `..data` dangling: write afresh
      throw error;
    });
    if (oldFiles !== undefined && samePayload(payload, oldFiles)) {
      await this.linkVisibleNames(payload);
      return false;
    }
    const newDir = await mkdtemp(join(target, timestampPrefix(new Date())));
    await chmod(newDir, 0o755);
    for (const file of payload) {
      const path = join(newDir, file.path);
      await mkdir(dirname(path), { recursive: true, mode: 0o755 });
      await writeFile(path, file.data, { mode: file.mode });
      await chmod(path, file.mode);
    }
    if (this.owner !== undefined) await ownTree(newDir, this.owner);
    const tmpLink = join(target, DATA_DIR_TMP);
    await rm(tmpLink, { force: true });
    await symlink(basename(newDir), tmpLink);
    await rename(tmpLink, join(target, DATA_DIR));
    await this.linkVisibleNames(payload);
    const kept = new Set(payload.map((file) => topLevel(file.path)));
    for (const name of new Set([...(oldFiles?.keys() ?? [])].map(topLevel))) if (!kept.has(name)) await this.unlinkVisibleName(name);
    await this.removeStaleDataDirs(basename(newDir));
    return true;
  }

  /** `name → ..data/name` for every top-level name of the payload that has no link yet. */
  private async linkVisibleNames(payload: readonly VolumeFile[]): Promise<void> {
    for (const name of new Set(payload.map((file) => topLevel(file.path)))) {
      const link = join(this.targetDir, name);
      try {
        await readlink(link);
      } catch (error) {
        if (!isMissing(error)) throw error;
        await symlink(join(DATA_DIR, name), link);
      }
    }
  }

  private async unlinkVisibleName(name: string): Promise<void> {
    const link = join(this.targetDir, name);
    const pointsAt = await readlink(link).catch(() => undefined);
    if (pointsAt === join(DATA_DIR, name)) await unlink(link);
  }

  /** Every timestamped folder but the current one: the previous contents and crash leftovers. */
  private async removeStaleDataDirs(current: string): Promise<void> {
    for (const entry of await readdir(this.targetDir, { withFileTypes: true })) {
      if (entry.name.startsWith('..') && entry.isDirectory() && entry.name !== current) await rm(join(this.targetDir, entry.name), { recursive: true, force: true });
    }
  }
}
