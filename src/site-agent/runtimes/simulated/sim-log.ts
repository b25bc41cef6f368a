/**
 * The generated log of a simulated container, as a function of time (kwok-like): each run
 * of a container writes `lines` lines as it starts, then `linesPerSecond` lines a second
 * until it ends. Line `seq` (1-based) always has the same time and text, so every request,
 * followed or not, sees the same log. Pure; times in epoch ms, line times in ns.
 */

/** One run of a container (a container start), as its log sees it. */
export interface SimLogRun {
  /** The restart count of the run. */
  readonly restart: number;
  readonly startedAt: number;
  /** Absent while the run goes on. */
  readonly finishedAt?: number;
}

export interface SimLogShape {
  readonly lines: number;
  readonly linesPerSecond: number;
}

const NS_PER_MS = 1_000_000n;

/** The time of line `seq` in ns; undefined when the run never writes it (no lines after the first ones). */
export function simLineTimeNs(run: SimLogRun, shape: SimLogShape, seq: number): bigint | undefined {
  const start = BigInt(run.startedAt) * NS_PER_MS;
  if (seq <= shape.lines) return start;
  if (!(shape.linesPerSecond > 0)) return undefined;
  return start + BigInt(Math.floor(((seq - shape.lines) * 1e9) / shape.linesPerSecond));
}

/** How many lines the run has written by `atMs` (never past its end). */
export function simLinesAt(run: SimLogRun, shape: SimLogShape, atMs: number): number {
  const until = Math.min(atMs, run.finishedAt ?? Infinity);
  if (until < run.startedAt) return 0;
  const limit = BigInt(until) * NS_PER_MS;
  return lastAtOrBefore(run, shape, limit, shape.lines + Math.floor(((until - run.startedAt) * shape.linesPerSecond) / 1000));
}

/** The first line written at or after `sinceMs` (it may not be written yet). */
export function simFirstLineSince(run: SimLogRun, shape: SimLogShape, sinceMs: number): number {
  if (sinceMs <= run.startedAt) return 1;
  if (!(shape.linesPerSecond > 0)) return shape.lines + 1;
  const since = BigInt(sinceMs) * NS_PER_MS;
  const estimate = shape.lines + Math.floor(((sinceMs - run.startedAt) * shape.linesPerSecond) / 1000);
  return lastAtOrBefore(run, shape, since - 1n, estimate) + 1;
}

/** The last line at or before `limitNs`, from an estimate the float arithmetic may have put one or two off. */
function lastAtOrBefore(run: SimLogRun, shape: SimLogShape, limitNs: bigint, estimate: number): number {
  const writtenBy = (seq: number): boolean => {
    const at = simLineTimeNs(run, shape, seq);
    return at !== undefined && at <= limitNs;
  };
  let seq = Math.max(0, estimate);
  while (seq > 0 && !writtenBy(seq)) seq--;
  while (writtenBy(seq + 1)) seq++;
  return seq;
}

/** Go's `time.RFC3339Nano` (UTC): nanoseconds with trailing zeros trimmed, none when whole. */
export function rfc3339Nano(ns: bigint): string {
  const seconds = ns / 1_000_000_000n;
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${base}${fraction === '' ? '' : `.${fraction}`}Z`;
}

export interface SimLogLineFields {
  readonly pod: string;
  readonly namespace: string;
  readonly container: string;
  readonly restart: number;
}

/** One line of the log (with its newline), its time first when `timestamps` is asked for, as kubelet writes it. */
export function renderSimLogLine(template: string, fields: SimLogLineFields, seq: number, timeNs: bigint, timestamps: boolean): string {
  const time = rfc3339Nano(timeNs);
  const text = template.replace(/\{(pod|namespace|container|seq|restart|time)\}/g, (_, name: string) => {
    switch (name) {
      case 'seq':
        return String(seq);
      case 'restart':
        return String(fields.restart);
      case 'time':
        return time;
      default:
        return fields[name as 'pod' | 'namespace' | 'container'];
    }
  });
  return timestamps ? `${time} ${text}\n` : `${text}\n`;
}
