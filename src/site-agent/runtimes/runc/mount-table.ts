import { readFile } from 'node:fs/promises';

/** One line of /proc/self/mountinfo, as far as the runtime needs it. */
export interface MountEntry {
  readonly mountPoint: string;
  readonly fsType: string;
  /** The file system's own options (for overlay: `lowerdir=…,upperdir=…`). */
  readonly superOptions: string;
}

/** mountinfo escapes space, tab, newline and backslash as octal (`\040`). */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

/** Parses /proc/<pid>/mountinfo. Pure. */
export function parseMountInfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator < 0) continue;
    entries.push({ mountPoint: unescape(fields[4] ?? ''), fsType: fields[separator + 1] ?? '', superOptions: unescape(fields[separator + 3] ?? '') });
  }
  return entries;
}

/** The mounts of this process's mount namespace. */
export async function currentMounts(): Promise<MountEntry[]> {
  return parseMountInfo(await readFile('/proc/self/mountinfo', 'utf8'));
}
