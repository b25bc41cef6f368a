import type { ServerResponse } from 'node:http';
import { chunkBody } from '../../registry/chunk-framing.js';

/** The largest group of chunks joined into one buffer before it is written: one TLS record's payload. */
export const MAX_JOINED_BYTES = 16 * 1024;

/**
 * The most bytes a watch may have waiting in its connection's write buffer: past it, the
 * client has stopped reading and the watch is closed (kube-apiserver closes such "slow
 * watchers" too; the client lists and watches again). Events are counted as well (the watch
 * cache's queue of 1,000), but a thousand large objects are megabytes.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

/**
 * Writes whole, already framed chunks of a chunked response whose headers are flushed.
 *
 * While the response owns its socket (always, except behind a pipelined response still being
 * sent) a chunk goes to the socket as it is: one buffer, one TLS record. `response.write`
 * would frame it again for each watch (a length string and three buffers joined per write,
 * corked until the next tick), which costs a thousand watches of one event about as much as
 * the encryption and the system calls; the chunks of stored objects are framed once for all
 * watches (ObjectCodec.eventChunk). Without the socket the body goes through
 * `response.write`, which queues it behind the pipelined response; the order of the chunks
 * is kept either way. `response.end()` writes the last chunk as usual.
 *
 * Several chunks written together go out in one system call: joined into one buffer when
 * they fit one TLS record ({@link MAX_JOINED_BYTES}; `join` may share that buffer among the
 * watches writing the same chunks), else corked and written as they are. A join is never
 * larger than a record: watches that each miss a different run of events would otherwise
 * each get their own copy of it, and with a slow client those copies are what waits in
 * memory. {@link backlog} counts the chunks written since the destination last asked to be
 * drained. When more than `maxBufferedBytes` wait in the connection's buffer, `onOverflow`
 * is called (once): the caller ends the watch and destroys the connection, which frees them.
 */
export class ChunkWriter {
  private pending = 0;
  private waiters: Array<() => void> = [];
  private readonly onDrain = (): void => {
    this.pending = 0;
    this.wakeAll();
  };

  private overflowed = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly overflow: { readonly maxBufferedBytes: number; readonly onOverflow: (bufferedBytes: number) => void } = { maxBufferedBytes: Number.POSITIVE_INFINITY, onOverflow: () => undefined },
  ) {}

  get backlog(): number {
    return this.pending;
  }

  /** Writes `chunks` in order; `join` makes one buffer of several (default: Buffer.concat). */
  write(chunks: readonly Buffer[], join: (chunks: readonly Buffer[]) => Buffer = (c) => Buffer.concat(c)): void {
    const socket = this.response.socket;
    let ok = true;
    if (socket === null) for (const chunk of chunks) ok = this.response.write(chunkBody(chunk));
    else if (chunks.length === 1) ok = socket.write(chunks[0] as Buffer);
    else if (byteLength(chunks) <= MAX_JOINED_BYTES) ok = socket.write(join(chunks));
    else {
      socket.cork();
      for (const chunk of chunks) ok = socket.write(chunk);
      socket.uncork();
    }
    if (ok) return;
    if (this.pending === 0) (socket ?? this.response).once('drain', this.onDrain);
    this.pending += chunks.length;
    const buffered = (socket ?? this.response).writableLength;
    if (buffered > this.overflow.maxBufferedBytes && !this.overflowed) {
      this.overflowed = true;
      this.overflow.onOverflow(buffered);
    }
  }

  /** Resolves once the chunks written so far have drained (or at once when they have). */
  drained(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Stops waiting for drains; pending {@link drained} promises resolve. */
  close(): void {
    this.response.socket?.off('drain', this.onDrain);
    this.response.off('drain', this.onDrain);
    this.wakeAll();
  }

  private wakeAll(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

function byteLength(chunks: readonly Buffer[]): number {
  let total = 0;
  for (const chunk of chunks) total += chunk.length;
  return total;
}
