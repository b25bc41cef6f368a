import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFilesAtomic } from '../../common/atomic-file.js';
import { EnvelopeEncryption } from '../../common/envelope-encryption.js';
import type { Timers } from '../../common/timers.js';
import type { Logger } from '../../observability/logger.js';
import { loadOrCreateSiteKey } from './site-key.js';

/** A write waits this long for more changes to the same state (default). */
const DEFAULT_DELAY_MS = 2000;
/** And at least this many times the last write's duration: a large site's writes take at most a fifth of the time. */
const DURATION_FACTOR = 4;
const SUFFIX = '.sealed';

/**
 * Named JSON documents kept in `dir` (0700), each in a file of its own (0600), sealed with
 * AES-256-GCM under the site key (envelope encryption: a fresh data key per write, the file's
 * name bound as additional data, so a file renamed or copied from another site does not open).
 * Writes are behind and coalesced: `put` only marks a document changed, and every changed
 * document is written (atomically, with one fsync of the folder) at most once per delay, taking
 * its contents when written, however many changes came in between.
 */
export class SealedStateFiles {
  private readonly sealer: EnvelopeEncryption;
  private readonly changed = new Map<string, () => unknown>();
  private cancel: (() => void) | undefined;
  private writing: Promise<void> | undefined;
  private lastWriteMs = 0;
  private closed = false;
  /** Writes done (each one pass over the changed documents), for tests and logs. */
  writes = 0;

  constructor(
    private readonly dir: string,
    private readonly timers: Timers,
    private readonly logger: Logger,
    private readonly delayMs = DEFAULT_DELAY_MS,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.sealer = new EnvelopeEncryption({ current: loadOrCreateSiteKey(dir) });
    // Temporary files of a write a crash interrupted.
    for (const name of readdirSync(dir)) if (name.endsWith('.tmp')) rmSync(join(dir, name), { force: true });
  }

  /** The document as last written, or undefined when there is none or it does not open (logged). */
  read<T>(name: string): T | undefined {
    let sealed: string;
    try {
      sealed = readFileSync(join(this.dir, name + SUFFIX), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.logger.warn({ err: error, name }, 'cannot read persisted site state');
      return undefined;
    }
    try {
      return JSON.parse(this.sealer.fromStorage(sealed, name)) as T;
    } catch (error) {
      this.logger.warn({ err: error, name }, 'persisted site state does not open; ignored');
      return undefined;
    }
  }

  /** Marks `name` changed: `contents` is called when it is written (the latest state then; undefined: nothing to write yet). */
  put(name: string, contents: () => unknown): void {
    if (this.closed) return;
    this.changed.set(name, contents);
    this.schedule();
  }

  /** Writes every changed document now (after a write under way). */
  async flush(): Promise<void> {
    this.cancel?.();
    this.cancel = undefined;
    while (this.writing !== undefined) await this.writing;
    if (this.changed.size > 0) await this.write();
  }

  /** Writes what changed and stops writing. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private schedule(): void {
    if (this.cancel !== undefined || this.writing !== undefined) return;
    this.cancel = this.timers.schedule(() => {
      this.cancel = undefined;
      void this.write();
    }, Math.max(this.delayMs, this.lastWriteMs * DURATION_FACTOR));
  }

  private write(): Promise<void> {
    const batch = [...this.changed];
    this.changed.clear();
    const started = this.timers.now();
    this.writing = (async () => {
      try {
        const files = [];
        for (const [name, contents] of batch) {
          // Nothing to write now (a relist under way): the file keeps what it had until the next change.
          const value = contents();
          if (value !== undefined) files.push({ name: name + SUFFIX, contents: this.sealer.toStorage(JSON.stringify(value), name), mode: 0o600 });
        }
        if (files.length > 0) await writeFilesAtomic(this.dir, files);
        this.writes++;
      } catch (error) {
        // Written again with the next change, or at the next start from what the control plane sends.
        for (const [name, contents] of batch) if (!this.changed.has(name)) this.changed.set(name, contents);
        this.logger.warn({ err: error, dir: this.dir }, 'cannot persist the site state; trying again later');
      } finally {
        this.lastWriteMs = this.timers.now() - started;
        this.writing = undefined;
      }
      if (this.changed.size > 0 && !this.closed) this.schedule();
    })();
    return this.writing;
  }
}
