import { mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ImageStoreError } from './image-store-error.js';

const LOCK = '.lock';
const WAIT_MS = 30_000;
const POLL_MS = 25;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `fn` holding the store's lock: a file made exclusively, holding the holder's pid, so
 * the quick steps that change what the store shows (an import's renames, a removal) never
 * interleave between processes. A lock whose holder has died is broken.
 */
export async function withStoreLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, LOCK);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number((await readFile(file, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(holder) && holder > 0 && !alive(holder)) {
        await rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new ImageStoreError(`the image store ${dir} is locked by process ${holder || '?'} (${file})`);
      await sleep(POLL_MS);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(file, { force: true });
  }
}
