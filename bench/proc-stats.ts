import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What /proc says about processes: resident memory and CPU time, for figures of processes the bench did not start itself. */

/** `VmRSS` of a /proc/<pid>/status text, in bytes; undefined when absent (a kernel thread, a zombie). */
export function vmRssBytes(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** utime + stime of a /proc/<pid>/stat text, in clock ticks (fields 14 and 15, counted after the parenthesised command, which may hold spaces). */
export function cpuTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime is field 14, stime 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  return utime + stime;
}

let ticksPerSecond: number | undefined;

/** CPU seconds (user + system) process `pid` has used so far (its threads included, not its children). */
export function processCpuSeconds(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  return cpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) / ticksPerSecond;
}

/** Resident memory of process `pid` now, in bytes; undefined when it is gone. */
export function processRssBytes(pid: number): number | undefined {
  try {
    return vmRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

export const fmtMiB = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
