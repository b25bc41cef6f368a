import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A process as the data plane knows it across agent restarts: its pid and the kernel's start time of it (a recycled pid has another). */
export interface ProcessIdentity {
  readonly pid: number;
  /** Field 22 of `/proc/<pid>/stat` (clock ticks after boot). */
  readonly startTime: string;
}

/** The argument list of `pid` (undefined when it is gone). */
export function commandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return undefined;
  }
}

/** The start time of `pid` (undefined when it is gone or a zombie). */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields count from its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the process `identity` names still runs (same pid, same start time). */
export function stillRuns(identity: ProcessIdentity): boolean {
  return processStartTime(identity.pid) === identity.startTime;
}

/** The identity of a running `pid`, or undefined. */
export function identityOf(pid: number | undefined): ProcessIdentity | undefined {
  const startTime = pid === undefined ? undefined : processStartTime(pid);
  return pid === undefined || startTime === undefined ? undefined : { pid, startTime };
}

/** The pid a process wrote to `pidFile`, or undefined. */
export function readPidFile(pidFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 1 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Reads a JSON file the agent wrote (undefined when missing or unreadable). */
export function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Writes a private JSON file atomically. */
export function writeJson(file: string, value: unknown): void {
  writeFileSync(`${file}.next`, JSON.stringify(value), { mode: 0o600 });
  renameSync(`${file}.next`, file);
}

/** SIGTERM to `identity` while it is that process, SIGKILL after `graceMs`; resolves once it is gone. */
export async function stopProcess(identity: ProcessIdentity, graceMs: number): Promise<void> {
  if (!stillRuns(identity)) return;
  process.kill(identity.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (stillRuns(identity)) {
    if (Date.now() > deadline) {
      if (stillRuns(identity)) process.kill(identity.pid, 'SIGKILL');
      await delay(50);
      break;
    }
    await delay(25);
  }
}

/**
 * Stops a process an earlier agent started and left running that cannot be adopted (it does not
 * answer, or its configuration changed): the pid in `pidFile`, only when its command line
 * still names `marker` (its own configuration path), so a recycled pid is never signalled.
 * SIGTERM, then SIGKILL after `graceMs`.
 */
export async function stopLeftover(pidFile: string, marker: string, graceMs = 3000): Promise<boolean> {
  const identity = identityOf(readPidFile(pidFile));
  rmSync(pidFile, { force: true });
  if (identity === undefined || !(commandLine(identity.pid) ?? []).join(' ').includes(marker)) return false;
  await stopProcess(identity, graceMs);
  return true;
}
