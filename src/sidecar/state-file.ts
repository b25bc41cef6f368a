import { mkdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { writeFilesAtomic } from '../common/atomic-file.js';
import type { LevelLogger } from '../observability/line-logger.js';
import type { SidecarState, SidecarStateName } from './sidecar-state.js';

/** What `--state-file` holds: `GET /status`'s word, since when, and why for DEGRADED and HALTED. */
export interface StateRecord {
  readonly state: SidecarStateName;
  /** RFC 3339 (UTC): when the sidecar entered this state word. */
  readonly since: string;
  /** DEGRADED: the last renewal's error; HALTED: `RETRY_BUDGET_EXHAUSTED` or `IDENTITY_EXPIRED`, then the last error. */
  readonly reason?: string;
}

const STATE_FILE_MODE = 0o600;

function reasonOf(state: SidecarState): string | undefined {
  if (state.kind === 'DEGRADED') return state.lastError;
  if (state.kind === 'HALTED') return state.lastError === undefined ? state.reason : `${state.reason}: ${state.lastError}`;
  return undefined;
}

/**
 * The record of `state` at `now` (ms): `since` stays `previous.since` while the word is the
 * same (a renewal keeps READY's), and is `now` when it changes. Pure.
 */
export function stateRecordOf(state: SidecarState, previous: StateRecord | undefined, now: number): StateRecord {
  const reason = reasonOf(state);
  const since = previous?.state === state.kind ? previous.since : new Date(now).toISOString();
  return { state: state.kind, since, ...(reason === undefined ? {} : { reason }) };
}

/**
 * Keeps `--state-file` equal to the sidecar's state, for a site agent that has no network path
 * into the pod: one small JSON line, replaced atomically (temporary `<file>.<pid>.tmp` in the
 * same folder, mode 0600, fsync, rename, fsync of the folder) whenever the record changes.
 * Writes run one at a time off the event loop; updates arriving meanwhile collapse into the
 * latest. A failed write is logged and retried at the next change (the sidecar carries on).
 */
export class StateFile {
  private record: StateRecord | undefined;
  private written: string | undefined;
  private writing: Promise<void> | undefined;
  private folderMade = false;

  constructor(
    private readonly path: string,
    private readonly logger: LevelLogger,
  ) {}

  /** The record last given to the file (tests). */
  current(): StateRecord | undefined {
    return this.record;
  }

  /** Records `state` at `now` (ms); the file follows. */
  update(state: SidecarState, now: number): void {
    this.record = stateRecordOf(state, this.record, now);
    this.writing ??= this.drain().finally(() => (this.writing = undefined));
  }

  /** Resolves once no write is on its way (the file holds the last record, unless a write failed). */
  async flushed(): Promise<void> {
    while (this.writing !== undefined) await this.writing;
  }

  private async drain(): Promise<void> {
    for (;;) {
      const contents = `${JSON.stringify(this.record)}\n`;
      if (contents === this.written) return;
      try {
        if (!this.folderMade) await mkdir(dirname(this.path), { recursive: true, mode: 0o755 });
        this.folderMade = true;
        await writeFilesAtomic(dirname(this.path), [{ name: basename(this.path), contents, mode: STATE_FILE_MODE }]);
        this.written = contents;
      } catch (error) {
        this.logger.warn({ file: this.path, error: error instanceof Error ? error.message : String(error) }, 'cannot write the state file');
        return;
      }
    }
  }
}
