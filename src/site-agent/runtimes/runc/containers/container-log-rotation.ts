import { constants } from 'node:fs';
import { open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { ContainerFiles } from './runc-containers.js';

/** kubelet's `--container-log-max-size` and `--container-log-max-files`: files counted with the live one. */
export interface LogRotationPolicy {
  readonly maxSize: number;
  readonly maxFiles: number;
}

/** kubelet's defaults: 10 MiB, 5 files. */
export const DEFAULT_LOG_ROTATION: LogRotationPolicy = { maxSize: 10 * 1024 * 1024, maxFiles: 5 };

/**
 * conmon's own cap on one log file (`--log-size-max`): twice the rotation size. The agent
 * rotates a log once it reached `maxSize` (every 10 s, as kubelet); between two checks a flood
 * could grow it without bound, so conmon replaces a live file that would pass this cap with an
 * empty one (`<log>.tmp` renamed over it: what a flood writes beyond it is lost). Every file,
 * the live one and each rotated one (conmon's count runs on across the agent's reopens), then
 * holds at most this many bytes, so a container's logs never hold more than
 * `2 × maxSize × maxFiles` on disk.
 */
export function conmonLogSizeMax(policy: LogRotationPolicy): number {
  return 2 * policy.maxSize;
}

/** A container's log could not be rotated (its conmon is gone or did not reopen); the live log is left in place. */
export class LogRotationError extends Error {}

/** conmon's control message "reopen the log" (`REOPEN_LOGS_EVENT` 2, then height and width it ignores: `src/ctrl.c`). */
const REOPEN_LOG_MESSAGE = '2 0 0\n';
const REOPEN_TIMEOUT_MS = 5000;

/**
 * The files of a container's CRI log, oldest first: the rotated ones (`<log>.<YYYYMMDD-hhmmss>`,
 * then `.1`, `.2`… when one second saw several rotations), then the live log when it exists.
 * conmon's own `<log>.tmp` is not a log file.
 */
export async function criLogFiles(log: string): Promise<string[]> {
  const names = await readdir(dirname(log)).catch(() => [] as string[]);
  const prefix = `${basename(log)}.`;
  const rotated = names
    .map((name) => ({ name, order: rotationOrder(name.startsWith(prefix) ? name.slice(prefix.length) : undefined) }))
    .filter((entry): entry is { name: string; order: [string, number] } => entry.order !== undefined)
    .sort((a, b) => (a.order[0] === b.order[0] ? a.order[1] - b.order[1] : a.order[0] < b.order[0] ? -1 : 1))
    .map((entry) => join(dirname(log), entry.name));
  return names.includes(basename(log)) ? [...rotated, log] : rotated;
}

/** Rotates the container's log once it has reached `maxSize` (kubelet checks every 10 s); whether it did. */
export async function rotateContainerLogIfNeeded(files: Pick<ContainerFiles, 'log' | 'bundle'>, policy: LogRotationPolicy = DEFAULT_LOG_ROTATION, now = new Date()): Promise<boolean> {
  const size = (await stat(files.log).catch(() => undefined))?.size;
  if (size === undefined || size < policy.maxSize) return false;
  await rotateContainerLog(files, policy, now);
  return true;
}

/**
 * kubelet's container log manager's rotation, for a log conmon writes: removes the oldest
 * rotated files so that `maxFiles - 2` remain, renames the live log to `<log>.<timestamp>`
 * (UTC, so the order holds across clock changes) and asks conmon to reopen its log, which
 * makes a new live file. Lines conmon writes meanwhile go to the renamed file, so none is
 * lost. If conmon does not reopen, the rename is undone and a {@link LogRotationError}
 * thrown. kubelet also gzips older rotated files; here they stay plain. Returns the rotated
 * file's path.
 */
export async function rotateContainerLog(files: Pick<ContainerFiles, 'log' | 'bundle'>, policy: LogRotationPolicy = DEFAULT_LOG_ROTATION, now = new Date()): Promise<string> {
  const rotated = (await criLogFiles(files.log)).filter((file) => file !== files.log);
  for (const file of rotated.slice(0, Math.max(0, rotated.length - Math.max(0, policy.maxFiles - 2)))) await rm(file, { force: true });
  const target = rotatedName(files.log, timestamp(now), rotated);
  try {
    await rename(files.log, target);
  } catch (error) {
    throw new LogRotationError(`cannot rotate ${files.log}: ${(error as Error).message}`);
  }
  try {
    await reopenConmonLog(files);
  } catch (error) {
    await rename(target, files.log).catch(() => undefined);
    throw error;
  }
  return target;
}

/**
 * Asks the container's conmon to reopen its log: the message goes to the `ctl` FIFO conmon
 * made in the bundle; conmon then creates a new file at the log's path (through `<log>.tmp`
 * and a rename). Resolves once that file exists, so call it after moving the log away.
 */
async function reopenConmonLog(files: Pick<ContainerFiles, 'log' | 'bundle'>, timeoutMs = REOPEN_TIMEOUT_MS): Promise<void> {
  const fifo = join(files.bundle, 'ctl');
  // Non-blocking: with no conmon reading, the open fails (ENXIO) instead of waiting for one.
  const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    throw new LogRotationError(`cannot reach conmon through ${fifo}: ${error.code === 'ENXIO' ? 'conmon is not running' : error.message}`);
  });
  try {
    await handle.write(REOPEN_LOG_MESSAGE);
  } finally {
    await handle.close();
  }
  const deadline = Date.now() + timeoutMs;
  while ((await stat(files.log).catch(() => undefined)) === undefined) {
    if (Date.now() > deadline) throw new LogRotationError(`conmon did not reopen ${files.log} within ${timeoutMs} ms`);
    await delay(5);
  }
}

/** kubelet's rotated-file timestamp (`20060102-150405`). */
function timestamp(now: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}-${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}`;
}

/** `[timestamp, n]` of a rotated file's suffix (`20261127-183518` or `20261127-183518.2`), or undefined. */
function rotationOrder(suffix: string | undefined): [string, number] | undefined {
  const match = suffix === undefined ? null : /^(\d{8}-\d{6})(?:\.(\d+))?$/.exec(suffix);
  return match === null ? undefined : [match[1] as string, match[2] === undefined ? 0 : Number(match[2])];
}

/**
 * `<log>.<stamp>`, or when that second already has rotated files, the next number after the
 * highest of them: a file removed meanwhile must not free a name that sorts before a newer one.
 */
function rotatedName(log: string, stamp: string, rotated: readonly string[]): string {
  const prefix = `${basename(log)}.`;
  const numbers = rotated
    .map((file) => rotationOrder(basename(file).slice(prefix.length)))
    .filter((order): order is [string, number] => order !== undefined && order[0] === stamp)
    .map((order) => order[1]);
  return numbers.length === 0 ? `${log}.${stamp}` : `${log}.${stamp}.${Math.max(...numbers) + 1}`;
}
