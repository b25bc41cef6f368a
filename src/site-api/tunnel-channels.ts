import { Writable, type Readable } from 'node:stream';
import { FrameDecoder, frameHeader, MAX_FRAME_PAYLOAD } from './tunnel-protocol.js';

/**
 * Both ends of an exec or attach tunnel stream multiplex channels on one HTTP/2 body
 * (tunnel-protocol.ts). Backpressure goes through: a writer waits while the body is full,
 * and a reader stops reading the body while the channel a frame goes to is full, so HTTP/2's
 * flow control holds the other end.
 */

/** Resolves once `target` took `data` (at once, or after `drain`); at once when it is closed. */
export function writeWithBackpressure(target: Writable, data: Buffer): Promise<void> {
  if (target.destroyed || target.writableEnded) return Promise.resolve();
  if (target.write(data)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      target.off('drain', done);
      target.off('close', done);
      resolve();
    };
    target.once('drain', done);
    target.once('close', done);
  });
}

/** Sends one frame (split when longer than a frame may be); resolves when `sink` can take more. */
export async function sendFrame(sink: Writable, channel: number, payload: Buffer): Promise<void> {
  if (payload.length === 0) return writeWithBackpressure(sink, frameHeader(channel, 0));
  for (let offset = 0; offset < payload.length; offset += MAX_FRAME_PAYLOAD) {
    const slice = payload.subarray(offset, offset + MAX_FRAME_PAYLOAD);
    sink.write(frameHeader(channel, slice.length));
    await writeWithBackpressure(sink, slice);
  }
}

/** A Writable whose bytes become frames of `channel` on `sink`; ending it sends nothing. */
export function channelWriter(sink: Writable, channel: number): Writable {
  return new Writable({
    highWaterMark: MAX_FRAME_PAYLOAD,
    write(chunk: Buffer, _encoding, callback) {
      sendFrame(sink, channel, chunk).then(() => callback(), callback);
    },
  });
}

/**
 * Reads `source` to its end, handing each frame to `onFrame` and waiting for it before reading
 * on. Rejects when the body ends inside a frame or a frame is malformed.
 */
export async function readFrames(source: Readable, onFrame: (channel: number, payload: Buffer) => Promise<void> | void): Promise<void> {
  const decoder = new FrameDecoder();
  for await (const chunk of source as AsyncIterable<Buffer>) {
    for (const frame of decoder.push(chunk)) await onFrame(frame.channel, frame.payload);
  }
  if (decoder.buffered > 0) throw new Error('the tunnel stream ended inside a frame');
}
