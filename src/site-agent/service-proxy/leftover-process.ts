import { readFileSync, rmSync } from 'node:fs';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function commandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return undefined;
  }
}

/**
 * Stops a process an earlier agent started and left running (it was killed, or crashed): the
 * pid in `pidFile`, only when its command line still names `marker` (its own configuration
 * path), so a recycled pid is never signalled. SIGTERM, then SIGKILL after `graceMs`.
 */
export async function stopLeftover(pidFile: string, marker: string, graceMs = 3000): Promise<boolean> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
  } catch {
    return false;
  }
  rmSync(pidFile, { force: true });
  if (!Number.isInteger(pid) || pid <= 1 || !(commandLine(pid) ?? '').includes(marker)) return false;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (commandLine(pid) !== undefined) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      await delay(50);
      break;
    }
    await delay(25);
  }
  return true;
}
