import { Readable } from 'node:stream';
import type { SiteLogOptions } from '../../../../site-api/pod-streams.js';
import { readInstanceLog, type InstanceLog } from './cri-log-reader.js';
import { LogRenderer, PartialJoiner, sinceNanos, TailWindow, type LogEntry } from './cri-log.js';

/**
 * `kubectl logs` of one container instance as kubelet serves it: every file of the
 * instance's log (rotated ones first), fragments joined, then `tailLines`, `sinceTime` /
 * `sinceSeconds`, `timestamps` and `limitBytes`; with `follow` it goes on until the instance
 * ends or the stream is destroyed. Reading is pulled by the consumer (backpressure).
 */
export function containerLogStream(target: InstanceLog, options: SiteLogOptions, nowMs: number): Readable {
  const abort = new AbortController();
  const since = sinceNanos(options, nowMs);
  const renderer = new LogRenderer({ timestamps: options.timestamps, ...(since === undefined ? {} : { since }), ...(options.limitBytes === undefined ? {} : { limitBytes: options.limitBytes }) });
  async function* chunks(): AsyncGenerator<Buffer> {
    const joiner = new PartialJoiner();
    const tail = new TailWindow(options.tailLines);
    let caughtUp = false;
    const emit = (entries: readonly LogEntry[]): Buffer | undefined => {
      const parts = entries.map((entry) => renderer.render(entry)).filter((part) => part.length > 0);
      return parts.length === 0 ? undefined : Buffer.concat(parts);
    };
    for await (const batch of readInstanceLog(target, { from: 'start', follow: options.follow, signal: abort.signal })) {
      if ('caughtUp' in batch) {
        caughtUp = true;
        const out = emit(tail.drain());
        if (out !== undefined) yield out;
      } else {
        const entries = batch.records.map((record) => joiner.push(record)).filter((entry): entry is LogEntry => entry !== undefined);
        if (!caughtUp) for (const entry of entries) tail.push(entry);
        else {
          const out = emit(entries);
          if (out !== undefined) yield out;
        }
      }
      if (renderer.done) return;
    }
    // The log ended mid-line: kubelet shows what there is.
    const rest = joiner.flush();
    if (!caughtUp) {
      for (const entry of rest) tail.push(entry);
      const out = emit(tail.drain());
      if (out !== undefined) yield out;
    } else {
      const out = emit(rest);
      if (out !== undefined) yield out;
    }
  }
  const stream = Readable.from(chunks(), { objectMode: false });
  stream.once('close', () => abort.abort());
  return stream;
}
