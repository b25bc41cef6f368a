import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { isMountPoint } from './mount-table.js';

function run(command: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { timeout: 10_000 }, (error, _stdout, stderr) => (error === null ? resolve() : reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`)))),
  );
}

/** Mounts a private tmpfs at `dir` (made if absent), mode 0700 unless given, at most `sizeBytes` when given; already mounted is fine. */
export async function mountTmpfs(dir: string, options: { readonly mode?: number; readonly sizeBytes?: number } = {}): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (await isMountPoint(dir)) return;
  const mode = (options.mode ?? 0o700).toString(8);
  const size = options.sizeBytes === undefined ? [] : [`size=${options.sizeBytes}`];
  await run('mount', ['-t', 'tmpfs', '-o', ['nosuid', 'nodev', `mode=${mode}`, ...size].join(','), 'tmpfs', dir]);
}

/** Unmounts `dir` when it is a mount point (lazily, so a process still inside cannot keep it). */
export async function unmount(dir: string): Promise<void> {
  if (await isMountPoint(dir)) await run('umount', ['-l', dir]);
}
