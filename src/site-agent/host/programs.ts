import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A program the agent runs, with what it needs in its environment (LD_LIBRARY_PATH for libraries outside the system's path). */
export interface Program {
  readonly path: string;
  readonly env: Readonly<Record<string, string>>;
}

export function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `name` in the folders of `path` (a PATH value), then /usr/sbin and /sbin. */
export function onPath(name: string, path: string): string | undefined {
  for (const dir of [...path.split(delimiter), '/usr/sbin', '/sbin']) {
    if (dir !== '' && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
