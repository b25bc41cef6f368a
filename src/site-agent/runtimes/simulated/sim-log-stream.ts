import { Readable } from 'node:stream';
import type { Timers } from '../../../common/timers.js';
import { renderSimLogLine, simLineTimeNs, simLinesAt, type SimLogLineFields, type SimLogRun, type SimLogShape } from './sim-log.js';

/** How often a follower with no line due looks whether its container ended. */
const FOLLOW_POLL_MS = 1000;

export interface SimLogStreamOptions {
  readonly timers: Timers;
  readonly run: SimLogRun;
  readonly shape: SimLogShape;
  readonly template: string;
  readonly fields: SimLogLineFields;
  /** The first line to send (after `tailLines` and `since`). */
  readonly first: number;
  readonly timestamps: boolean;
  readonly limitBytes?: number;
  /** Following: when the run ended, looked up as lines come due (undefined: it goes on). */
  readonly follow?: () => number | undefined;
}

/**
 * A container's generated log as a byte stream. Lines are made when the reader asks for them
 * (a high-water mark of one byte: at most one line waits in the stream when the reader stops
 * reading, and no timer runs then). Without `follow` it ends at the lines written by now;
 * with it, it waits for each next line's time and ends after the run's last line.
 * `limitBytes` cuts it, mid-line if need be, as kubelet's limit writer does.
 */
export function simLogStream(options: SimLogStreamOptions): Readable {
  const { timers, run, shape } = options;
  let next = options.first;
  let end = options.follow === undefined ? (run.finishedAt ?? timers.now()) : run.finishedAt;
  let remaining = options.limitBytes ?? Infinity;
  let cancel: (() => void) | undefined;

  const stream = new Readable({
    highWaterMark: 1,
    read() {
      if (cancel === undefined) produce();
    },
    destroy(error, callback) {
      cancel?.();
      cancel = undefined;
      callback(error);
    },
  });

  function produce(): void {
    const now = timers.now();
    if (end === undefined) end = options.follow?.();
    const written = simLinesAt(run, shape, Math.min(now, end ?? Infinity));
    if (next <= written) {
      push(next++);
      return;
    }
    if (end !== undefined && next > simLinesAt(run, shape, end)) {
      stream.push(null);
      return;
    }
    const due = simLineTimeNs(run, shape, next);
    const dueMs = due === undefined ? Infinity : Number((due + 999_999n) / 1_000_000n);
    const wait = Math.max(0, Math.min(dueMs, end ?? Infinity, now + FOLLOW_POLL_MS) - now);
    cancel = timers.schedule(() => {
      cancel = undefined;
      if (!stream.destroyed) produce();
    }, wait);
  }

  function push(seq: number): void {
    const time = simLineTimeNs(run, shape, seq) ?? 0n;
    const line = Buffer.from(renderSimLogLine(options.template, options.fields, seq, time, options.timestamps));
    if (line.length >= remaining) {
      stream.push(line.subarray(0, remaining));
      stream.push(null);
      return;
    }
    remaining -= line.length;
    stream.push(line);
  }

  return stream;
}
