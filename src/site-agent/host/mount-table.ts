import { readFile } from 'node:fs/promises';

/** One line of `/proc/<pid>/mountinfo` (proc(5)). */
export interface MountEntry {
  readonly id: number;
  readonly parentId: number;
  readonly mountPoint: string;
  readonly options: string;
  readonly fsType: string;
  readonly source: string;
  readonly superOptions: string;
}

/** The kernel writes space, tab, newline and backslash in paths as octal escapes. */
const unescape = (field: string): string => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** Parses `/proc/<pid>/mountinfo` (proc(5)): the fields before the optional ones, then those after the `-`. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (dash < 0) continue;
    entries.push({
      id: Number(fields[0]),
      parentId: Number(fields[1]),
      mountPoint: unescape(fields[4] ?? ''),
      options: fields[5] ?? '',
      fsType: fields[dash + 1] ?? '',
      source: unescape(fields[dash + 2] ?? ''),
      superOptions: unescape(fields[dash + 3] ?? ''),
    });
  }
  return entries;
}

/** The mounts of this process's mount namespace. */
export async function readMountTable(): Promise<MountEntry[]> {
  return parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8'));
}

/** Mounts at `dir` (a canonical path) or below it, deepest last in mount order. */
export function mountsUnder(entries: readonly MountEntry[], dir: string): MountEntry[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return entries.filter((entry) => entry.mountPoint === dir || entry.mountPoint.startsWith(prefix));
}

/** Whether `path` (canonical) is a mount point of this process's mount namespace now. */
export async function isMountPoint(path: string): Promise<boolean> {
  return (await readMountTable()).some((entry) => entry.mountPoint === path);
}
