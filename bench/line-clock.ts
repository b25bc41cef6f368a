/**
 * Write-to-read delays of log lines that carry their writer's clock (`Date.now()` in ms, the
 * same machine's clock as the reader's), for the log latency of `npm run bench -- streams`.
 */
export interface LineClockOptions {
  /** The writer's stamp in a line (default: the whole line); lines without a number are ignored. */
  readonly stamp?: (line: string) => string | undefined;
  /** Timed lines to leave out first (a reader's start-up). */
  readonly skip?: number;
  readonly now?: () => number;
}

/**
 * Collects the delays of the first `count` lines written after the clock was made — history a
 * reader may be sent first (a follow without a tail) is not a delay — and resolves `done` then.
 */
export class LineClock {
  readonly samples: number[] = [];
  readonly done: Promise<void>;
  private readonly now: () => number;
  private readonly since: number;
  private readonly stamp: (line: string) => string | undefined;
  private skip: number;
  private rest = '';
  private finish: () => void = () => undefined;

  constructor(private readonly count: number, options: LineClockOptions = {}) {
    this.now = options.now ?? Date.now;
    this.since = this.now();
    this.stamp = options.stamp ?? ((line) => line);
    this.skip = options.skip ?? 0;
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** Bytes as they arrive: every complete line is stamped with this moment. */
  data(chunk: Buffer | string): void {
    const at = this.now();
    const lines = (this.rest + chunk.toString()).split('\n');
    this.rest = lines.pop() ?? '';
    for (const line of lines) {
      const text = this.stamp(line.trim());
      const written = text === undefined || text === '' ? Number.NaN : Number(text);
      if (!Number.isFinite(written) || written < this.since) continue;
      if (this.skip > 0) {
        this.skip--;
        continue;
      }
      if (this.samples.length < this.count) this.samples.push(at - written);
      if (this.samples.length === this.count) this.finish();
    }
  }
}
