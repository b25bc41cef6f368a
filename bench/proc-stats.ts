import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * Busy time of all CPUs in a /proc/stat text, in clock ticks: user, nice, system, irq, softirq,
 * steal (guest time is inside user); `interrupts` is the irq and softirq part (time no process is charged for).
 */
export function machineBusyTicks(stat: string): { busy: number; interrupts: number } {
  const fields = /^cpu\s+(.*)$/m.exec(stat)?.[1]?.trim().split(/\s+/).map(Number);
  if (fields === undefined || fields.length < 8 || fields.some((n) => !Number.isInteger(n))) throw new Error(`not a /proc/stat text: ${stat.slice(0, 80)}`);
  const [user, nice, system, , , irq, softirq, steal] = fields as [number, number, number, number, number, number, number, number];
  return { busy: user + nice + system + irq + softirq + steal, interrupts: irq + softirq };
}

/** Whether a /proc/<pid>/stat text is a kernel thread's (PF_KTHREAD in field 9, flags). */
export function isKernelThread(stat: string): boolean {
  const flags = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[6]);
  return (flags & 0x00200000) !== 0;
}

let ticksPerSecond: number | undefined;
const clockTicks = (): number => (ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);

/** CPU seconds (user + system) process `pid` has used so far (its threads included, not its children). */
export function processCpuSeconds(pid: number): number {
  return cpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')) / clockTicks();
}

/**
 * CPU seconds every CPU of the machine has been busy so far (all processes, the kernel's work
 * included), and the kernel's own part: interrupts plus its threads (kworkers, ksoftirqd…).
 */
export function machineBusySeconds(): { busy: number; kernel: number } {
  const { busy, interrupts } = machineBusyTicks(readFileSync('/proc/stat', 'utf8'));
  let threads = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (isKernelThread(stat)) threads += cpuTicks(stat);
    } catch {
      // gone meanwhile
    }
  }
  return { busy: busy / clockTicks(), kernel: (interrupts + threads) / clockTicks() };
}

/** CPU seconds the processes of a cgroup (v1 cpuacct, e.g. `/edgeplane/<site>`) have used so far; 0 when it does not exist. */
export function cgroupCpuSeconds(cgroup: string): number {
  try {
    return Number(readFileSync(`/sys/fs/cgroup/cpuacct${cgroup}/cpuacct.usage`, 'utf8').trim()) / 1e9;
  } catch {
    return 0;
  }
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
