import { type FSWatcher, watch } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { criLogFiles } from '../containers/index.js';
import { LineSplitter, parseCriLine, type CriRecord } from './cri-log.js';

/** How often a follower looks for new bytes, a rotation or the end when no file event came (inotify is the fast path). */
const POLL_MS = 250;
const CHUNK = 64 * 1024;

/** One container instance's log, as a reader needs it. */
export interface InstanceLog {
  /** The live CRI log conmon writes (rotated files are `<log>.<timestamp>` beside it). */
  readonly log: string;
  /** Folders whose changes may mean the instance ended (its exit folder). */
  readonly watch: readonly string[];
  /** Whether the instance has ended: nothing more will be written once the log is read to its end. */
  ended(): boolean;
}

/** What a reader yields: records, and once, `caughtUp` when the log as it was at the start has been read. */
export type LogBatch = { readonly records: CriRecord[] } | { readonly caughtUp: true };

/**
 * Reads a container instance's CRI log: from the oldest rotated file (`from: 'start'`) or from
 * the live file's current end (`'end'`, for attach). Without `follow` it stops at the end of
 * the live file (an unterminated last line is read as kubelet does); with it, it waits for
 * more — an inotify watch on the log's folder wakes it within milliseconds, a 250 ms poll
 * covers file systems without inotify — follows the live file across rotations (the renamed
 * file is read to its end before the new one), and ends once the instance ended and every
 * byte is read, or when `signal` aborts.
 */
export async function* readInstanceLog(target: InstanceLog, options: { readonly from: 'start' | 'end'; readonly follow: boolean; readonly signal: AbortSignal }): AsyncGenerator<LogBatch> {
  const wake = new WakeUp([dirname(target.log), ...target.watch], options.signal);
  let live: FileHandle | undefined;
  try {
    live = await open(target.log, 'r').catch(() => undefined);
    const liveIno = live === undefined ? undefined : (await live.stat()).ino;
    let position = 0;
    if (options.from === 'start') {
      for (const file of await criLogFiles(target.log)) {
        if (file === target.log) continue;
        const handle = await open(file, 'r').catch(() => undefined);
        if (handle === undefined) continue;
        try {
          if ((await handle.stat()).ino === liveIno) continue;
          const splitter = new LineSplitter();
          for await (const records of readToEnd(handle, 0, splitter)) yield { records: records.records };
          const rest = splitter.flush();
          const record = rest === undefined ? undefined : parseCriLine(rest);
          if (record !== undefined) yield { records: [record] };
        } finally {
          await handle.close();
        }
      }
    } else if (live !== undefined) position = (await live.stat()).size;
    let splitter = new LineSplitter();
    let caughtUp = false;
    for (;;) {
      if (options.signal.aborted) return;
      // The end is checked before the read, so every byte written before the end was seen is read.
      const ended = target.ended();
      if (live === undefined) live = await open(target.log, 'r').catch(() => undefined);
      if (live !== undefined) {
        for await (const batch of readToEnd(live, position, splitter)) {
          position = batch.position;
          if (batch.records.length > 0) yield { records: batch.records };
        }
        // Rotated: the live path is another file now. The old one is read to its end (above), then the new one from its start.
        const current = await stat(target.log).catch(() => undefined);
        if (current !== undefined && current.ino !== (await live.stat()).ino) {
          for await (const batch of readToEnd(live, position, splitter)) if (batch.records.length > 0) yield { records: batch.records };
          await live.close();
          live = await open(target.log, 'r').catch(() => undefined);
          position = 0;
          splitter = new LineSplitter();
          continue;
        }
      }
      if (!caughtUp) {
        caughtUp = true;
        yield { caughtUp: true };
      }
      if (!options.follow || ended) {
        const rest = splitter.flush();
        const record = rest === undefined ? undefined : parseCriLine(rest);
        if (record !== undefined) yield { records: [record] };
        return;
      }
      await wake.next(POLL_MS);
    }
  } finally {
    wake.close();
    await live?.close().catch(() => undefined);
  }
}

async function* readToEnd(handle: FileHandle, from: number, splitter: LineSplitter): AsyncGenerator<{ records: CriRecord[]; position: number }> {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let position = from;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
    if (bytesRead === 0) return;
    position += bytesRead;
    const records: CriRecord[] = [];
    for (const line of splitter.push(Buffer.from(buffer.subarray(0, bytesRead)))) {
      const record = parseCriLine(line);
      if (record !== undefined) records.push(record);
    }
    yield { records, position };
  }
}

/** Resolves `next()` on a change in any watched folder, after `timeoutMs`, or on abort; changes between waits are not lost. */
class WakeUp {
  private readonly watchers: FSWatcher[] = [];
  private changed = false;
  private waiter: (() => void) | undefined;

  constructor(
    dirs: readonly string[],
    private readonly signal: AbortSignal,
  ) {
    for (const dir of dirs) {
      try {
        const watcher = watch(dir, () => this.fire());
        watcher.on('error', () => watcher.close());
        this.watchers.push(watcher);
      } catch {
        // no inotify for this folder (or it is gone): the poll covers it
      }
    }
    signal.addEventListener('abort', this.fire);
  }

  private readonly fire = (): void => {
    this.changed = true;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  };

  async next(timeoutMs: number): Promise<void> {
    if (!this.changed && !this.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.waiter = undefined;
          resolve();
        }, timeoutMs);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.changed = false;
  }

  close(): void {
    this.signal.removeEventListener('abort', this.fire);
    for (const watcher of this.watchers) watcher.close();
    this.fire();
  }
}
