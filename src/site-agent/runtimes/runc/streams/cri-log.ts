/**
 * The CRI log format conmon writes (`<RFC3339Nano> <stdout|stderr> <P|F> <content>\n`) and
 * what kubelet makes of it for `kubectl logs` (pkg/kubelet/kuberuntime/logs): records parsed,
 * partial (`P`) fragments joined into one line, `sinceTime`/`sinceSeconds`, `tailLines`,
 * `timestamps` and `limitBytes`. Pure: bytes in, bytes out.
 */

export type CriStream = 'stdout' | 'stderr';

/** One line of a CRI log file. */
export interface CriRecord {
  /** The timestamp as conmon wrote it. */
  readonly time: string;
  readonly stream: CriStream;
  /** `P`: the line goes on in the next record of the same stream. */
  readonly partial: boolean;
  readonly content: Buffer;
}

/** One line of output: joined fragments, ending in `\n` unless the log ended mid-line. */
export interface LogEntry {
  readonly time: string;
  readonly nanos: bigint;
  readonly stream: CriStream;
  readonly content: Buffer;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** Nanoseconds since the epoch of an RFC 3339 time (fraction up to nanoseconds), or undefined. */
export function rfc3339Nanos(text: string): bigint | undefined {
  const m = RFC3339.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone] = m as unknown as string[];
  const offsetMinutes = zone === 'Z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6)));
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offsetMinutes * 60_000;
  return BigInt(ms) * 1_000_000n + BigInt(frac.padEnd(9, '0'));
}

/** kubelet's output timestamp (Go's RFC3339Nano): the fraction without trailing zeros, `Z` for a zero offset. */
export function formatKubeletTime(time: string): string {
  const m = RFC3339.exec(time);
  if (m === null) return time;
  const frac = (m[7] ?? '').replace(/0+$/, '');
  const zone = m[8] === 'Z' || m[8] === '+00:00' || m[8] === '-00:00' ? 'Z' : (m[8] as string);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${frac === '' ? '' : `.${frac}`}${zone}`;
}

/** Parses one line (without its `\n`); undefined for what is not a CRI record (kubelet skips those). */
export function parseCriLine(line: Buffer): CriRecord | undefined {
  const first = line.indexOf(0x20);
  if (first < 0) return undefined;
  const time = line.subarray(0, first).toString('latin1');
  if (rfc3339Nanos(time) === undefined) return undefined;
  const second = line.indexOf(0x20, first + 1);
  if (second < 0) return undefined;
  const stream = line.subarray(first + 1, second).toString('latin1');
  if (stream !== 'stdout' && stream !== 'stderr') return undefined;
  const third = line.indexOf(0x20, second + 1);
  // A record of an empty full line may end right after its tag.
  const tagEnd = third < 0 ? line.length : third;
  const tags = line.subarray(second + 1, tagEnd).toString('latin1').split(':');
  return { time, stream, partial: tags[0] === 'P', content: third < 0 ? Buffer.alloc(0) : line.subarray(third + 1) };
}

/** Splits a byte stream into lines; what follows the last `\n` waits for more bytes. */
export class LineSplitter {
  private rest: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk]);
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
      lines.push(data.subarray(start, nl));
      start = nl + 1;
    }
    this.rest = Buffer.from(data.subarray(start));
    return lines;
  }

  /** Bytes after the last newline (a line being written). */
  get pending(): number {
    return this.rest.length;
  }

  /** The unterminated last line, if any (kubelet reads it when it does not follow). */
  flush(): Buffer | undefined {
    const rest = this.rest;
    this.rest = Buffer.alloc(0);
    return rest.length === 0 ? undefined : rest;
  }
}

/** Joins `P` fragments with the record that completes them, per stream (stdout and stderr interleave). */
export class PartialJoiner {
  private readonly pending = new Map<CriStream, { time: string; parts: Buffer[] }>();

  push(record: CriRecord): LogEntry | undefined {
    const open = this.pending.get(record.stream);
    if (record.partial) {
      if (open === undefined) this.pending.set(record.stream, { time: record.time, parts: [record.content] });
      else open.parts.push(record.content);
      return undefined;
    }
    this.pending.delete(record.stream);
    const time = open?.time ?? record.time;
    const content = Buffer.concat([...(open?.parts ?? []), record.content, NEWLINE]);
    return { time, nanos: rfc3339Nanos(time) ?? 0n, stream: record.stream, content };
  }

  /** Lines the log ended in the middle of (no newline added), oldest first. */
  flush(): LogEntry[] {
    const entries = [...this.pending.entries()].map(([stream, open]) => ({ time: open.time, nanos: rfc3339Nanos(open.time) ?? 0n, stream, content: Buffer.concat(open.parts) }));
    this.pending.clear();
    return entries.sort((a, b) => (a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0));
  }
}

const NEWLINE = Buffer.from('\n');

/** The first instant whose lines are shown: `sinceTime`, or `sinceSeconds` before `nowMs` (as kubelet turns one into the other). */
export function sinceNanos(options: { readonly sinceSeconds?: number; readonly sinceTime?: string }, nowMs: number): bigint | undefined {
  if (options.sinceTime !== undefined) return rfc3339Nanos(options.sinceTime);
  if (options.sinceSeconds !== undefined) return (BigInt(nowMs) - BigInt(options.sinceSeconds) * 1000n) * 1_000_000n;
  return undefined;
}

/** The last `size` entries offered (all of them when `size` is undefined). */
export class TailWindow {
  private entries: LogEntry[] = [];

  constructor(private readonly size: number | undefined) {}

  push(entry: LogEntry): void {
    if (this.size === 0) return;
    this.entries.push(entry);
    if (this.size !== undefined && this.entries.length > this.size * 2) this.entries = this.entries.slice(-this.size);
  }

  drain(): LogEntry[] {
    const out = this.size === undefined ? this.entries : this.entries.slice(-this.size);
    this.entries = [];
    return out;
  }
}

export interface LogRenderOptions {
  readonly timestamps: boolean;
  readonly since?: bigint;
  readonly limitBytes?: number;
}

/**
 * Renders entries as kubelet's log writer does: entries before `since` dropped, the
 * timestamp and a space in front with `timestamps`, the output cut at exactly `limitBytes`
 * (the prefix counts), after which {@link done} is true.
 */
export class LogRenderer {
  private remaining: number;

  constructor(private readonly options: LogRenderOptions) {
    this.remaining = options.limitBytes ?? Number.POSITIVE_INFINITY;
  }

  get done(): boolean {
    return this.remaining <= 0;
  }

  render(entry: LogEntry): Buffer {
    if (this.done || (this.options.since !== undefined && entry.nanos < this.options.since)) return Buffer.alloc(0);
    const line = this.options.timestamps ? Buffer.concat([Buffer.from(`${formatKubeletTime(entry.time)} `), entry.content]) : entry.content;
    const out = line.length > this.remaining ? line.subarray(0, this.remaining) : line;
    this.remaining -= out.length;
    return out;
  }
}
