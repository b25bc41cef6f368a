import { Duplex, Writable } from 'node:stream';
import WebSocket, { type RawData } from 'ws';
import { decodeFrame, encodeFrame, type ChannelFrame } from './channel-frames.js';

/**
 * A WebSocket seen as numbered channels: writable streams that send frames on a channel
 * (completing when the frame has been handed to the socket, which gives backpressure), and
 * incoming frames dispatched by channel. Nothing is sent once the socket is no longer open.
 */
export class ChannelSocket {
  /** Resolves when the socket has closed (either side). */
  readonly closed: Promise<void>;

  constructor(
    readonly ws: WebSocket,
    private readonly base64: boolean,
  ) {
    this.closed = new Promise((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) resolve();
      ws.once('close', () => resolve());
    });
  }

  /** Sends one frame; resolves when written (or at once when the socket is gone). */
  send(channel: number, data: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.ws.readyState !== WebSocket.OPEN) return resolve();
      this.ws.send(encodeFrame(channel, data, this.base64), () => resolve());
    });
  }

  /** A writable whose chunks become frames on `channel`; ending it sends nothing. */
  writer(channel: number): Writable {
    const writable = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        void this.send(channel, chunk).then(() => callback());
      },
    });
    writable.on('error', () => undefined);
    return writable;
  }

  /** A duplex for one channel: writes are sent on it, frames received on it are read. */
  duplex(channel: number): { readonly stream: Duplex; receive(data: Buffer): void } {
    const stream = new Duplex({
      read: () => this.ws.isPaused && this.ws.resume(),
      write: (chunk: Buffer, _encoding, callback) => {
        void this.send(channel, chunk).then(() => callback());
      },
    });
    stream.on('error', () => undefined);
    return {
      stream,
      receive: (data) => {
        if (!stream.push(data)) this.ws.pause();
      },
    };
  }

  /** Calls `handler` for every non-empty frame received. */
  onFrame(handler: (frame: ChannelFrame) => void): void {
    this.ws.on('message', (raw: RawData, isBinary: boolean) => {
      const frame = decodeFrame(toBuffer(raw), isBinary, this.base64);
      if (frame !== null) handler(frame);
    });
  }

  /** Closes normally (1000); terminates if the client does not answer within `graceMs`. */
  async close(graceMs: number): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.close(1000);
    const timer = setTimeout(() => this.ws.terminate(), graceMs);
    timer.unref();
    await this.closed;
    clearTimeout(timer);
  }
}

function toBuffer(raw: RawData): Buffer {
  if (Buffer.isBuffer(raw)) return raw;
  if (Array.isArray(raw)) return Buffer.concat(raw);
  return Buffer.from(raw);
}
